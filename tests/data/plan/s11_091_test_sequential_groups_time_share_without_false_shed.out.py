# rule §11 #91 TestCapacityGatedReuse::test_sequential_groups_time_share_without_false_shed (§6.3, §6.7): group A
# (16384 B, 0:0/0:1) then group B (24576 B, 1:0/1:1), disjoint in time. FFD places rb0, rb1 first
# (apart, F_B = 2), then ra0 joins rb0 and ra1 joins rb1 (different groups never block): 2 x 24576 =
# 49152 B fits, so no shed and no hint. R mode.
# memreuse-test: backend=910b step0=off addresses=on
# expect: same rb0 ra0
# expect: same rb1 ra1
# expect: distinct ra0 ra1
# expect: distinct rb0 rb1
# expect: nodiag PH-MR-001
# expect: nodiag MR-W001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, la: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], ba0: pl.Tensor[[128, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)], ba1: pl.Tensor[[128, 64], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)], bb0: pl.Tensor[[128, 96], pl.BF16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 24576)], bb1: pl.Tensor[[128, 96], pl.BF16, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 24576)], outa0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 4096)]], outa1: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 4096)]], outb0: pl.Out[pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 6144)]], outb1: pl.Out[pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 6144)]]) -> pl.Tensor[[16, 96], pl.FP32]:
        mem_left_10: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_mat_17: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 24576)
        mem_right_18: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 24576)
        mem_acc_19: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 6144)
        mem_right_21: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 24576)
        lam: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_17, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(la, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        lt: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_10, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(lam, target_memory=pl.Mem.Left)
        ba0m: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_mat_17, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(ba0, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat, transpose=False)
        ra0: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_18, pl.const(0, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(ba0m, target_memory=pl.Mem.Right)
        ma0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_19, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, ra0)
        outa0_1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 4096)] = pl.tile.store(ma0, [0, 0], outa0)
        ba1m: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_mat_17, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(ba1, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat, transpose=False)
        ra1: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_21, pl.const(24576, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(ba1m, target_memory=pl.Mem.Right)
        ma1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_19, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, ra1)
        outa1_1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 4096)] = pl.tile.store(ma1, [0, 0], outa1)
        bb0m: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_17, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(bb0, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        rb0: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_18, pl.const(0, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(bb0m, target_memory=pl.Mem.Right)
        mb0: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_19, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, rb0)
        outb0_1: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 6144)] = pl.tile.store(mb0, [0, 0], outb0)
        bb1m: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_17, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(bb1, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        rb1: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_21, pl.const(24576, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(bb1m, target_memory=pl.Mem.Right)
        mb1: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_19, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, rb1)
        outb1_1: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 6144)] = pl.tile.store(mb1, [0, 0], outb1)
        return outb1_1
