# pypto.program: SelectActivation
import pypto.language as pl

@pl.program
class SelectActivation:
    @pl.function(type=pl.FunctionType.AIV)
    def select_activation(self, x: pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 262144)], y: pl.Out[pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 262144)]], y_debug: pl.Out[pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 262144)]], mode: pl.Scalar[pl.INT64]) -> pl.Tensor[[1024, 64], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_12: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_15: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_16: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 32
        x_tile: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(x, [row0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        if mode > 0:
            relu_t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.relu(x_tile)
            then_scaled: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.muls(relu_t, 2.0)
            act: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(then_scaled)
        else:
            neg_t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.neg(x_tile)
            else_exp: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(neg_t)
            act: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(else_exp)
        if mode > 1:
            hi: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.adds(act, 1.0)
            lo: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.adds(act, -1.0)
            upper, lower = pl.yield_(hi, lo)
        else:
            hi_clamped: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(act, x_tile)
            lo_clamped: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_12, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.minimum(act, x_tile)
            upper, lower = pl.yield_(hi_clamped, lo_clamped)
        band: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(upper, lower)
        if mode == 3:
            band_half: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.muls(band, 0.5)
            debug_stored: pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 262144)] = pl.tile.store(band_half, [row0, 0], y_debug)
            pl.yield_()
        y_stored: pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 262144)] = pl.tile.store(band, [row0, 0], y)
        return y_stored
