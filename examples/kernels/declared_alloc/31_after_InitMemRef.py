# pypto.program: DeclaredPingStage
import pypto.language as pl

@pl.program
class DeclaredPingStage:
    @pl.function(type=pl.FunctionType.AIV)
    def declared_ping_stage(self, x: pl.Tensor[[1024, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 524288)], y: pl.Out[pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 262144)]]) -> pl.Tensor[[1024, 64], pl.FP32]:
        ping: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192, pinned=True)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        stage: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 32
        x_lo: pl.Tile[[32, 64], pl.FP32, pl.MemRef(ping, 0, 8192), pl.Mem.Vec] = pl.tile.load(x, [row0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        exp_lo: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(x_lo)
        x_hi: pl.Tile[[32, 64], pl.FP32, pl.MemRef(ping, 0, 8192), pl.Mem.Vec] = pl.tile.load(x, [row0, 64], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        exp_hi: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(x_hi)
        pair_sum: pl.Tile[[32, 64], pl.FP32, pl.MemRef(stage, 0, 8192), pl.Mem.Vec] = pl.tile.add(exp_lo, exp_hi)
        pair_mean: pl.Tile[[32, 64], pl.FP32, pl.MemRef(stage, 8192, 8192), pl.Mem.Vec] = pl.tile.muls(pair_sum, 0.5)
        y_stored: pl.Tensor[[1024, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 262144)] = pl.tile.store(pair_mean, [row0, 0], y)
        return y_stored
