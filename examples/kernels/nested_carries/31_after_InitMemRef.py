# pypto.program: MaskedAccumulate
import pypto.language as pl

@pl.program
class MaskedAccumulate:
    @pl.function(type=pl.FunctionType.AIV)
    def masked_accumulate(self, x: pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 262144)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        acc_init: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc_outer,) in pl.range(4, init_values=(acc_init,)):
            for j, (acc_inner,) in pl.range(4, init_values=(acc_outer,)):
                r: pl.Scalar[pl.INDEX] = i * 256 + j * 16
                x_tile: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [r, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
                if j < 2:
                    acc_added: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(acc_inner, x_tile)
                    acc_sel: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(acc_added)
                else:
                    acc_sel: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(acc_inner)
                inner_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(acc_sel)
            acc_scaled: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.muls(inner_out, 0.5)
            outer_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(acc_scaled)
        y_stored: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(outer_out, [0, 0], y)
        return y_stored
