# Repair MR-R007: the loop's result `acc_out` is printed on another buffer than its init `a`,
# and the loop yields its iter arg unchanged, so no yield fixup moves it. PyPTO aligns loop
# carries to their inits (rule §7.2) only after it reused some buffer, and nothing is reused
# here, so its plan leaves the result where nothing is written and the store after the loop
# reads stale bytes (V005, V007). The safe planner aligns the carries anyway.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R007
import pypto.language as pl

@pl.program
class CarryAlignedWithoutReuse:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a,)):
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(acc)
            st0: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(nxt, [16, 0], y)
            acc_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(acc)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(acc_out, [0, 0], y)
        return st
## repairs
r007_carry_aligned_without_reuse.py:21:13: warning[MR-R007]: PyPTO leaves loop carry 'acc_out' on 'mem_vec_4', off 'mem_vec_2' where its init value 'a' sits (PyPTO aligns loop carries only when it reuses a buffer, and it reuses none here), so the carry would not receive its init; the repaired plan puts it on 'mem_vec_2'
