# rule §11 #83 TestCapacityGatedReuse::test_finds_max_affordable_double_buffer_depth (§6.6): three stages of
# 32768 B; F = min(3, 65536 / 32768) = 2, so stages ping-pong by ordinal mod 2: r0 and r2 share, r1
# stays apart (2 buffers, not collapsed to 1). F < D gives the slot-bound hint (3 x 32768 > 65536;
# threshold 65536 / 3 = 21845 B). R mode.
# memreuse-test: backend=910b step0=off
# expect: same r0 r2
# expect: distinct r0 r1
# expect: diag PH-MR-001 software pipelining requested depth 3 for pipeline group 0 in Right, but only 2 of 3 buffers fit (32768 B per stage, 65536 B free) — stages 2 apart share storage and serialize. This operand alone needs 98304 B for depth 3; shrink the per-stage tile to <= 21845 B, or reduce the pipeline depth (e.g. `pl.pipeline(stage=)`) to 2.
# expect: nodiag MR-W001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a0: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], b0: pl.Tensor[[128, 128], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)], a1: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)], b1: pl.Tensor[[128, 128], pl.BF16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 32768)], a2: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 4096)], b2: pl.Tensor[[128, 128], pl.BF16, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 32768)], out0: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 8192)]], out1: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 8192)]], out2: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[16, 128], pl.FP32]:
        mem_mat_9: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_10: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_left_11: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_12: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_13: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_mat_14: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_15: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_left_16: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_17: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_18: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_mat_19: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_20: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_left_21: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_22: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_23: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        a0m: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        b0m: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_10, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(b0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat, transpose=False)
        l0: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_11, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a0m, target_memory=pl.Mem.Left)
        r0: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_12, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(b0m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0"})
        m0: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_13, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(l0, r0)
        out0_1: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m0, [0, 0], out0)
        a1m: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_14, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a1, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        b1m: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_15, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(b1, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat, transpose=False)
        l1: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_16, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a1m, target_memory=pl.Mem.Left)
        r1: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_17, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(b1m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})
        m1: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_18, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(l1, r1)
        out1_1: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m1, [0, 0], out1)
        a2m: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_19, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a2, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        b2m: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_20, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(b2, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat, transpose=False)
        l2: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_21, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a2m, target_memory=pl.Mem.Left)
        r2: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_22, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(b2m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:2"})
        m2: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_23, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(l2, r2)
        out2_1: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m2, [0, 0], out2)
        return out2_1
