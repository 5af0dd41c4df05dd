# pypto.program: CenterRows
import pypto.language as pl

@pl.program
class CenterRows:
    @pl.function(type=pl.FunctionType.AIV)
    def center_rows(self, x: pl.Tensor[[2048, 512], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4194304)], y: pl.Out[pl.Tensor[[2048, 512], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4194304)]]) -> pl.Tensor[[2048, 512], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 16
        sum_init: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.full([16, 1], dtype=pl.FP32, value=0.0)
        for c, (sum_acc,) in pl.range(4, init_values=(sum_init,)):
            c0: pl.Scalar[pl.INDEX] = c * 128
            chunk: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(x, [row0, c0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
            chunk_tmp: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            part_sum: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.row_sum(chunk, chunk_tmp)
            sum_next: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.add(sum_acc, part_sum)
            sum_out: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.yield_(sum_next)
        mean: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.muls(sum_out, 0.001953125)
        for c2, (y_acc,) in pl.range(4, init_values=(y,)):
            c2_0: pl.Scalar[pl.INDEX] = c2 * 128
            chunk_again: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(x, [row0, c2_0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
            centered: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.row_expand_sub(chunk_again, mean)
            y_next: pl.Tensor[[2048, 512], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4194304)] = pl.tile.store(centered, [row0, c2_0], y_acc)
            y_out: pl.Tensor[[2048, 512], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4194304)] = pl.yield_(y_next)
        return y_out
