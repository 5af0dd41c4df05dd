# pypto.program: SymmetrizeSoftmaxCols
import pypto.language as pl

@pl.program
class SymmetrizeSoftmaxCols:
    @pl.function(type=pl.FunctionType.AIV)
    def symmetrize_softmax_cols(self, x: pl.Tensor[[32, 4096], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 524288)], y: pl.Out[pl.Tensor[[32, 4096], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 524288)]]) -> pl.Tensor[[32, 4096], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        col0: pl.Scalar[pl.INDEX] = blk * 32
        a: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, col0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        a_t: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.transpose(a, 0, 1)
        sym: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.maximum(a, a_t)
        col_max: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.col_max(sym)
        shifted: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.col_expand_sub(sym, col_max)
        expd: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(shifted)
        col_sum: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.col_sum(expd)
        col_recip: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.recip(col_sum)
        normed: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.col_expand_mul(expd, col_recip)
        y_stored: pl.Tensor[[32, 4096], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 524288)] = pl.tile.store(normed, [0, col0], y)
        return y_stored
