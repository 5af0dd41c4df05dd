# rule §11 #84 TestCapacityGatedReuse::test_merges_same_stage_operands (§6.6): r0 and r1 are both tagged 0:0,
# so D = 1 and their residues agree; the disjoint operands merge. F = D: no hint. R mode.
# memreuse-test: backend=910b step0=off
# expect: same r0 r1
# expect: nodiag PH-MR-001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a0: pl.Tensor[[32, 32], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], b0: pl.Tensor[[32, 32], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)], a1: pl.Tensor[[32, 32], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2048)], b1: pl.Tensor[[32, 32], pl.BF16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 2048)], out0: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 4096)]], out1: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_mat_6: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_7: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_left_8: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_9: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 2048)
        mem_acc_10: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        a0m: pl.Tile[[32, 32], pl.BF16, pl.MemRef(mem_mat_6, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(a0, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat, transpose=False)
        b0m: pl.Tile[[32, 32], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(b0, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat, transpose=False)
        l0: pl.Tile[[32, 32], pl.BF16, pl.MemRef(mem_left_8, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.move(a0m, target_memory=pl.Mem.Left)
        r0: pl.Tile[[32, 32], pl.BF16, pl.MemRef(mem_right_9, pl.const(0, pl.INT64), 2048), pl.Mem.Right] = pl.tile.move(b0m, target_memory=pl.Mem.Right)
        m0: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_10, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(l0, r0)
        out0_1: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 4096)] = pl.tile.store(m0, [0, 0], out0)
        a1m: pl.Tile[[32, 32], pl.BF16, pl.MemRef(mem_mat_6, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(a1, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat, transpose=False)
        b1m: pl.Tile[[32, 32], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(b1, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat, transpose=False)
        l1: pl.Tile[[32, 32], pl.BF16, pl.MemRef(mem_left_8, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.move(a1m, target_memory=pl.Mem.Left)
        r1: pl.Tile[[32, 32], pl.BF16, pl.MemRef(mem_right_9, pl.const(0, pl.INT64), 2048), pl.Mem.Right] = pl.tile.move(b1m, target_memory=pl.Mem.Right)
        m1: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_10, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(l1, r1)
        out1_1: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 4096)] = pl.tile.store(m1, [0, 0], out1)
        return out1_1
