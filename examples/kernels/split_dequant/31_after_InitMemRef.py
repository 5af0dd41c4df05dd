# pypto.program: DequantRows
import pypto.language as pl

@pl.program
class DequantRows:
    @pl.function(type=pl.FunctionType.AIV)
    def dequant_rows(self, w: pl.Tensor[[4096, 256], pl.INT8, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1048576)], scale: pl.Tensor[[4096, 1], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[4096, 256], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2097152)]]) -> pl.Tensor[[4096, 256], pl.BF16]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 16
        q_i8: pl.Tile[[16, 256], pl.INT8, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(w, [row0, 0], [16, 256], [16, 256], target_memory=pl.Mem.Vec)
        q_f16: pl.Tile[[16, 256], pl.FP16, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.cast(q_i8, target_type=pl.FP16, mode='round')
        q_f32: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.cast(q_f16, target_type=pl.FP32, mode='round')
        scale_tile: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.load(scale, [row0, 0], [16, 1], [16, 1], target_memory=pl.Mem.Vec)
        dequant: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.row_expand_mul(q_f32, scale_tile)
        y_bf16: pl.Tile[[16, 256], pl.BF16, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.cast(dequant, target_type=pl.BF16, mode='round')
        y_stored: pl.Tensor[[4096, 256], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2097152)] = pl.tile.store(y_bf16, [row0, 0], y)
        return y_stored
