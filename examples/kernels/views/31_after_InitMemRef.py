# pypto.program: WindowViews
import pypto.language as pl

@pl.program
class WindowViews:
    @pl.function(type=pl.FunctionType.AIV)
    def window_views(self, x: pl.Tensor[[1024, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 524288)], y: pl.Out[pl.Tensor[[1024, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 524288)]], y_cols: pl.Out[pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 262144)]], y_row: pl.Out[pl.Tensor[[128, 1024], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 524288)]]) -> tuple[pl.Tensor[[1024, 128], pl.FP32], pl.Tensor[[1024, 64], pl.FP32], pl.Tensor[[128, 1024], pl.FP32]]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 32
        block_tile: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [row0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        bottom_half: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_4, 8192, 8192), pl.Mem.Vec] = pl.tile.slice(block_tile, [16, 128], [16, 0])
        right_cols: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_4, 256, 16128), pl.Mem.Vec] = pl.tile.slice(block_tile, [32, 64], [0, 64])
        row_five: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_4, 2560, 512), pl.Mem.Vec] = pl.tile.slice(block_tile, [1, 128], [5, 0])
        row_as_col: pl.Tile[[128, 1], pl.FP32, pl.MemRef(mem_vec_4, 2560, 512), pl.Mem.Vec] = pl.tile.reshape(row_five, [128, 1])
        bits: pl.Tile[[32, 128], pl.INT32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.reinterpret_view(block_tile, dtype=pl.INT32)
        abs_bits: pl.Tile[[32, 128], pl.INT32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.ands(bits, 2147483647)
        abs_vals: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.reinterpret_view(abs_bits, dtype=pl.FP32)
        bottom_scaled: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.muls(bottom_half, 0.5)
        cols_exp: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(right_cols)
        col_doubled: pl.Tile[[128, 1], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.muls(row_as_col, 2.0)
        abs_stored: pl.Tensor[[1024, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 524288)] = pl.tile.store(abs_vals, [row0, 0], y)
        row_mid: pl.Scalar[pl.INDEX] = row0 + 16
        bottom_stored: pl.Tensor[[1024, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 524288)] = pl.tile.store(bottom_scaled, [row_mid, 0], abs_stored)
        cols_stored: pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 262144)] = pl.tile.store(cols_exp, [row0, 0], y_cols)
        col_as_row: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.reshape(col_doubled, [1, 128])
        row_stored: pl.Tensor[[128, 1024], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 524288)] = pl.tile.store(col_as_row, [0, row0], y_row)
        return bottom_stored, cols_stored, row_stored
