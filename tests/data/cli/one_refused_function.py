# One program whose second function the planner refuses (MR-E001: two co-live tiles bound
# to one slot of a declared allocation): the other two must still be planned and reported.
import pypto.language as pl

@pl.program
class OneBadFunction:
    @pl.function(type=pl.FunctionType.AIV)
    def bias_gelu(self, x: pl.Tensor[[4096, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2097152)], bias: pl.Tensor[[32, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[4096, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2097152)]]) -> pl.Tensor[[4096, 128], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 32
        x_tile: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [row0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        bias_tile: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(bias, [0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        biased: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(x_tile, bias_tile)
        neg_scaled: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.muls(biased, -1.702)
        expo: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(neg_scaled)
        denom: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.adds(expo, 1.0)
        gelu: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.div(biased, denom)
        y_stored: pl.Tensor[[4096, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2097152)] = pl.tile.store(gelu, [row0, 0], y)
        return y_stored

    @pl.function(type=pl.FunctionType.InCore)
    def co_live_slot(self, x: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        ping: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024, pinned=True)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(ping, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        b: pl.Tile[[16, 16], pl.FP32, pl.MemRef(ping, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        c: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(a, b)
        res: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(c, [0, 0], out)
        return res

    @pl.function(type=pl.FunctionType.AIV)
    def bias_gelu_again(self, x: pl.Tensor[[4096, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2097152)], bias: pl.Tensor[[32, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[4096, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2097152)]]) -> pl.Tensor[[4096, 128], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 32
        x_tile: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [row0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        bias_tile: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(bias, [0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        biased: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(x_tile, bias_tile)
        neg_scaled: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.muls(biased, -1.702)
        expo: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(neg_scaled)
        denom: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.adds(expo, 1.0)
        gelu: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.div(biased, denom)
        y_stored: pl.Tensor[[4096, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2097152)] = pl.tile.store(gelu, [row0, 0], y)
        return y_stored
