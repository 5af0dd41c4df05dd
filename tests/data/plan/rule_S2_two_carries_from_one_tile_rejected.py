# Seed S2 (overlapping carries): both carries are seeded from one tile, so they start on one
# buffer and no order of their writebacks keeps both values: rejected, naming both carries.
# memreuse-test: backend=950 step0=on
# expect: error MR-E006 loop carries 'a' and 'b' start on overlapping buffers
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        for i, (a, b) in pl.range(4, init_values=(t, t)):
            na: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(a, b)
            nb: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.mul(a, b)
            out_a, out_b = pl.yield_(na, nb)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(out_a, [0, 0], output)
        return result
