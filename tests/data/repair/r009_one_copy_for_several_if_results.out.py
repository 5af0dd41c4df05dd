# Repair MR-R009: both arms yield one value for both if results, so both results sit on the
# then arm's `t`, and the else arm's `u` must be copied there. PyPTO copies it once per result
# (rule §7.5): the second copy overwrites the first while the yield still reads it (V003,
# V007). The safe planner copies it once and yields that copy for both results.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R009
import pypto.language as pl

@pl.program
class OneCopyForSeveralIfResults:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], c: pl.Scalar[pl.INT64]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        if c < 2:
            t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(a, a)
            r0, r1 = pl.yield_(t, t)
        else:
            u: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.mul(a, a)
            u_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(u, target_memory=pl.Mem.Vec)
            r0, r1 = pl.yield_(u_mv, u_mv)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(r0, r1)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(s, [0, 0], y)
        return st
## repairs
r009_one_copy_for_several_if_results.py:22:13: warning[MR-R009]: the else arm yields 'u' for several if results on 'mem_vec_3': PyPTO copies it there once per result, and each copy overwrites the one before while the yield still reads it; the repaired plan copies it once ('u_mv') and yields that copy for 'r1' too
