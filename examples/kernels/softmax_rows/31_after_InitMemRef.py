# pypto.program: SoftmaxRows
import pypto.language as pl

@pl.program
class SoftmaxRows:
    @pl.function(type=pl.FunctionType.AIV)
    def softmax_rows(self, x: pl.Tensor[[2048, 256], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2097152)], y: pl.Out[pl.Tensor[[2048, 256], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1048576)]]) -> pl.Tensor[[2048, 256], pl.BF16]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 16
        x_tile: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [row0, 0], [16, 256], [16, 256], target_memory=pl.Mem.Vec)
        scaled: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.muls(x_tile, 0.0625)
        max_tmp: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        row_max: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.row_max(scaled, max_tmp)
        shifted: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.row_expand_sub(scaled, row_max)
        expd: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(shifted)
        sum_tmp: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        row_sum: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.row_sum(expd, sum_tmp)
        probs: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.row_expand_div(expd, row_sum)
        probs_bf16: pl.Tile[[16, 256], pl.BF16, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.cast(probs, target_type=pl.BF16, mode='round')
        y_stored: pl.Tensor[[2048, 256], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1048576)] = pl.tile.store(probs_bf16, [row0, 0], y)
        return y_stored
