# rule §11 #92 TestCapacityGatedReuse::test_reserved_region_reduces_available_capacity, the WithReserve half
# (§2.5, §6.7): a 131072 B reserve_buffer (Vec for InCore) moves the footprint start, so
# 131072 + 2 x 49152 = 229376 > 188416 and group 0 is shed: r0 == r1, 131072 + 49152 fits. The
# hint reports the free bytes after the reserve. AllocateMemoryAddr places the tiles above the
# window and writes base=0 on the AUTO reserve call. R mode.
# memreuse-test: backend=910b step0=off addresses=on
# expect: same r0 r1 s0 s1
# expect: memref r0 mem_vec_4 131072 49152
# expect: diag PH-MR-001 software pipelining requested depth 2 for pipeline group 0 in Vec, but only 1 of 2 buffers fit (49152 B per stage, 57344 B free after 131072 B reserved) — stages 1 apart share storage and serialize. This operand alone needs 98304 B for depth 2; shrink the per-stage tile to <= 28672 B, or reduce the pipeline depth (e.g. `pl.pipeline(stage=)`) to 1.
# expect: nodiag MR-W001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x0: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 49152)], x1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 49152)], out0: pl.Out[pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 49152)]], out1: pl.Out[pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 49152)]]) -> pl.Tensor[[128, 96], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        pl.system.reserve_buffer(name="scratch", size=131072)
        r0: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x0, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Vec, transpose=False, attrs={"pipeline_membership": "0:0"})
        s0: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.add(r0, r0)
        out0_1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 49152)] = pl.tile.store(s0, [0, 0], out0)
        r1: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Vec, transpose=False, attrs={"pipeline_membership": "0:1"})
        s1: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.add(r1, r1)
        out1_1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 49152)] = pl.tile.store(s1, [0, 0], out1)
        return out1_1
