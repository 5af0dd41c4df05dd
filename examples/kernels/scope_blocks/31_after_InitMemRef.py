# pypto.program: ScopedResidual
import pypto.language as pl

@pl.program
class ScopedResidual:
    @pl.function(type=pl.FunctionType.AIV)
    def scoped_residual(self, a: pl.Tensor[[1024, 64], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 131072)], b: pl.Tensor[[1024, 64], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 131072)], y: pl.Out[pl.Tensor[[1024, 64], pl.FP16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 131072)]], y_sq: pl.Out[pl.Tensor[[1024, 64], pl.FP16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 131072)]]) -> tuple[pl.Tensor[[1024, 64], pl.FP16], pl.Tensor[[1024, 64], pl.FP16]]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 64
        with pl.scope():
            a_tile: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(a, [row0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            b_tile: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(b, [row0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            residual: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(a_tile, b_tile)
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            squared: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.mul(residual, residual)
            sq_stored: pl.Tensor[[1024, 64], pl.FP16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 131072)] = pl.tile.store(squared, [row0, 0], y_sq)
        activated: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.relu(residual)
        y_stored: pl.Tensor[[1024, 64], pl.FP16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 131072)] = pl.tile.store(activated, [row0, 0], y)
        return y_stored, sq_stored
