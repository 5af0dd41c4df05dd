# rule §11 #80 TestCapacityGatedReuse::test_emits_perf_hint_when_pipeline_depth_capacity_reduced (§6.8, §9.1):
# #79's program; the hint is slot-bound (need = 2 x 49152 = 98304 B > 65536 B free), so it gives the
# byte threshold 65536 / 2 = 32768 B. The whole one-line message is pinned. R mode.
# memreuse-test: backend=910b step0=off
# expect: same r0 r1
# expect: diag PH-MR-001 software pipelining requested depth 2 for pipeline group 0 in Right, but only 1 of 2 buffers fit (49152 B per stage, 65536 B free) — stages 1 apart share storage and serialize. This operand alone needs 98304 B for depth 2; shrink the per-stage tile to <= 32768 B, or reduce the pipeline depth (e.g. `pl.pipeline(stage=)`) to 1.
# expect: nodiag MR-W001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a0: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], b0: pl.Tensor[[128, 192], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 49152)], a1: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)], b1: pl.Tensor[[128, 192], pl.BF16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 49152)], out0: pl.Out[pl.Tensor[[16, 192], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 12288)]], out1: pl.Out[pl.Tensor[[16, 192], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 12288)]]) -> pl.Tensor[[16, 192], pl.FP32]:
        mem_mat_6: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_7: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 49152)
        mem_left_8: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_9: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 49152)
        mem_acc_10: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 12288)
        mem_mat_11: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_12: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 49152)
        mem_left_13: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_14: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 49152)
        mem_acc_15: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 12288)
        a0m: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_6, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        b0m: pl.Tile[[128, 192], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 49152), pl.Mem.Mat] = pl.tile.load(b0, [0, 0], [128, 192], [128, 192], target_memory=pl.Mem.Mat, transpose=False)
        l0: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_8, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a0m, target_memory=pl.Mem.Left)
        r0: pl.Tile[[128, 192], pl.BF16, pl.MemRef(mem_right_9, pl.const(0, pl.INT64), 49152), pl.Mem.Right] = pl.tile.move(b0m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0"})
        m0: pl.Tile[[16, 192], pl.FP32, pl.MemRef(mem_acc_10, pl.const(0, pl.INT64), 12288), pl.Mem.Acc] = pl.tile.matmul(l0, r0)
        out0_1: pl.Tensor[[16, 192], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 12288)] = pl.tile.store(m0, [0, 0], out0)
        a1m: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_11, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a1, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        b1m: pl.Tile[[128, 192], pl.BF16, pl.MemRef(mem_mat_12, pl.const(0, pl.INT64), 49152), pl.Mem.Mat] = pl.tile.load(b1, [0, 0], [128, 192], [128, 192], target_memory=pl.Mem.Mat, transpose=False)
        l1: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_13, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a1m, target_memory=pl.Mem.Left)
        r1: pl.Tile[[128, 192], pl.BF16, pl.MemRef(mem_right_14, pl.const(0, pl.INT64), 49152), pl.Mem.Right] = pl.tile.move(b1m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})
        m1: pl.Tile[[16, 192], pl.FP32, pl.MemRef(mem_acc_15, pl.const(0, pl.INT64), 12288), pl.Mem.Acc] = pl.tile.matmul(l1, r1)
        out1_1: pl.Tensor[[16, 192], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 12288)] = pl.tile.store(m1, [0, 0], out1)
        return out1_1
