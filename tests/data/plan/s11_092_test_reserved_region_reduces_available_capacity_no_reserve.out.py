# rule §11 #92 TestCapacityGatedReuse::test_reserved_region_reduces_available_capacity, the NoReserve half
# (§6.6): two 49152 B Vec pipeline loads; F = min(2, 188416 / 49152) = 2 and 2 x 49152 fits the
# 184 KiB Vec, so r0 and r1 stay apart (s0 and s1 join r0's buffer). R mode.
# memreuse-test: backend=910b step0=off addresses=on
# expect: distinct r0 r1
# expect: same r0 s0 s1
# expect: memref r0 mem_vec_4 0 49152
# expect: memref r1 mem_vec_6 49152 49152
# expect: nodiag PH-MR-001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x0: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 49152)], x1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 49152)], out0: pl.Out[pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 49152)]], out1: pl.Out[pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 49152)]]) -> pl.Tensor[[128, 96], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        r0: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x0, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Vec, transpose=False)
        s0: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.add(r0, r0)
        out0_1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 49152)] = pl.tile.store(s0, [0, 0], out0)
        r1: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_6, pl.const(49152, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Vec, transpose=False)
        s1: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.add(r1, r1)
        out1_1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 49152)] = pl.tile.store(s1, [0, 0], out1)
        return out1_1
