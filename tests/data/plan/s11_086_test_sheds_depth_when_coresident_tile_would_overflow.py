# rule §11 #86 TestCapacityGatedReuse::test_sheds_depth_when_coresident_tile_would_overflow (§6.7, note on
# #86): np0 (untagged, 32768 B) is live across both stages, so the first packing np0 | r0 | r1 needs
# 98304 B > 65536 B; MaxRelief sheds group 0 (F 2 -> 1), r1 joins r0 and the space fits exactly
# (AllocateMemoryAddr: np0's mem_right_12 at 0, mem_right_16 at 32768). The hint is not slot-bound
# (2 x 32768 <= 65536), so it blames the co-residents. R mode.
# memreuse-test: backend=910b step0=off addresses=on
# expect: same r0 r1
# expect: distinct np0 r0
# expect: memref np0 mem_right_12 0 32768
# expect: memref r0 mem_right_16 32768 32768
# expect: memref r1 mem_right_16 32768 32768
# expect: diag PH-MR-001 software pipelining requested depth 2 for pipeline group 0 in Right, but only 1 of 2 buffers fit (32768 B per stage, 65536 B free) — stages 1 apart share storage and serialize. The operand would fit depth 2 on its own, but co-resident buffers / other pipeline groups over-subscribe the space; relieve the co-residents (smaller or fewer co-live tiles) or reduce the pipeline depth to 1.
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
        mem_mat_13: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_14: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_left_15: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_16: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_17: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_mat_18: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_19: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_left_20: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_21: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_22: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_acc_23: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        a2m: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a2, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        b2m: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_10, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(b2, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat, transpose=False)
        l2: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_11, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a2m, target_memory=pl.Mem.Left)
        np0: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_12, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(b2m, target_memory=pl.Mem.Right)
        a0m: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_13, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        b0m: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_14, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(b0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat, transpose=False)
        l0: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_15, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a0m, target_memory=pl.Mem.Left)
        r0: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_16, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(b0m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0"})
        m0: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_17, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(l0, r0)
        out0_1: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m0, [0, 0], out0)
        a1m: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_18, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a1, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        b1m: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_19, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(b1, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat, transpose=False)
        l1: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_20, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a1m, target_memory=pl.Mem.Left)
        r1: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_21, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(b1m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})
        m1: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_22, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(l1, r1)
        out1_1: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m1, [0, 0], out1)
        m2: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_23, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(l2, np0)
        out2_1: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m2, [0, 0], out2)
        return out2_1
