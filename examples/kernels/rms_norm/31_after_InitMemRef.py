# pypto.program: RmsNorm
import pypto.language as pl

@pl.program
class RmsNorm:
    @pl.function(type=pl.FunctionType.AIV)
    def rms_norm(self, x: pl.Tensor[[2048, 512], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2097152)], gamma: pl.Tensor[[1, 512], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)], y: pl.Out[pl.Tensor[[2048, 512], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2097152)]]) -> pl.Tensor[[2048, 512], pl.BF16]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_12: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_13: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_14: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 16
        x_bf16: pl.Tile[[16, 512], pl.BF16, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [row0, 0], [16, 512], [16, 512], target_memory=pl.Mem.Vec)
        x_f32: pl.Tile[[16, 512], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.cast(x_bf16, target_type=pl.FP32, mode='round')
        squares: pl.Tile[[16, 512], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.mul(x_f32, x_f32)
        sum_tmp: pl.Tile[[16, 512], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.create([16, 512], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        sq_sum: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.row_sum(squares, sum_tmp)
        mean_sq: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.muls(sq_sum, 0.001953125)
        mean_eps: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.adds(mean_sq, 1e-06)
        inv_rms: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.rsqrt(mean_eps)
        normed: pl.Tile[[16, 512], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.row_expand_mul(x_f32, inv_rms)
        gamma_tile: pl.Tile[[1, 512], pl.FP32, pl.MemRef(mem_vec_12, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(gamma, [0, 0], [1, 512], [1, 512], target_memory=pl.Mem.Vec)
        weighted: pl.Tile[[16, 512], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.col_expand_mul(normed, gamma_tile)
        y_bf16: pl.Tile[[16, 512], pl.BF16, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.cast(weighted, target_type=pl.BF16, mode='round')
        y_stored: pl.Tensor[[2048, 512], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2097152)] = pl.tile.store(y_bf16, [row0, 0], y)
        return y_stored
