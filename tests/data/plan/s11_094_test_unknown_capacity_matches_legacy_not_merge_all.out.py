# rule §11 #94 TestCapacityGatedReuse::test_unknown_capacity_matches_legacy_not_merge_all (#1900; §6.6:
# with no backend every capacity is 0, so the legacy predicate separates Vec pipeline loads of one
# group with different stages). r0 (0:0) and r1 (0:1) stay apart; the untagged s0/s1 still coalesce
# onto r0's buffer. The pipeline_membership attr is stripped from the output (§7.8). R mode.
# memreuse-test: backend=none step0=off
# expect: distinct r0 r1
# expect: same r0 s0 s1
# expect: base r0 mem_vec_4
# expect: base r1 mem_vec_6
# expect: allocs Vec:49152 Vec:49152
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x0: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 49152)], x1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 49152)], o0: pl.Out[pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 49152)]], o1: pl.Out[pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 49152)]]) -> pl.Tensor[[128, 96], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        r0: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x0, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Vec, transpose=False)
        s0: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.add(r0, r0)
        o0_1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 49152)] = pl.tile.store(s0, [0, 0], o0)
        r1: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Vec, transpose=False)
        s1: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.add(r1, r1)
        o1_1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 49152)] = pl.tile.store(s1, [0, 0], o1)
        return o1_1
