# rule §11 #93 TestCapacityGatedReuse::test_multi_group_shed_prefers_largest_slot (§6.7 MaxRelief, note on #93):
# np0 (24576 B) is live across group A (24576 B, 0:0/0:1) and group B (16384 B, 1:0/1:1). First
# packing np0 | {ra0, rb0} | {ra1, rb1} = 73728 > 65536; MaxRelief sheds A (larger aligned slot),
# re-pack np0 | {ra0, ra1, rb0} | {rb1} = 65536 fits exactly, B keeps depth 2. Only group 0 gets
# the hint (co-resident wording: 2 x 24576 <= 65536). R mode; upstream's non-SSA oa/ob chains are
# spelled oa_1, oa_2, ob_1, ob_2.
# memreuse-test: backend=910b step0=off addresses=on
# expect: same ra0 ra1 rb0
# expect: distinct rb0 rb1 np0
# expect: diag PH-MR-001 software pipelining requested depth 2 for pipeline group 0 in Right, but only 1 of 2 buffers fit (24576 B per stage, 65536 B free) — stages 1 apart share storage and serialize. The operand would fit depth 2 on its own, but co-resident buffers / other pipeline groups over-subscribe the space; relieve the co-residents (smaller or fewer co-live tiles) or reduce the pipeline depth to 1.
# expect: nodiag MR-W001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, la: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], bnp: pl.Tensor[[128, 96], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 24576)], ba: pl.Tensor[[128, 96], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 24576)], bb: pl.Tensor[[128, 64], pl.BF16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 16384)], onp: pl.Out[pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 6144)]], oa: pl.Out[pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 6144)]], ob: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 96], pl.FP32]:
        mem_left_8: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_mat_9: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 24576)
        mem_right_10: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 24576)
        mem_right_12: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 24576)
        mem_acc_13: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 6144)
        mem_right_21: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        lam: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(la, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        lt: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_8, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(lam, target_memory=pl.Mem.Left)
        bnpm: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(bnp, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        np0: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_10, pl.const(0, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(bnpm, target_memory=pl.Mem.Right)
        ba0m: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(ba, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        ra0: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_12, pl.const(24576, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(ba0m, target_memory=pl.Mem.Right)
        ma0: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_13, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, ra0)
        oa_1: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 6144)] = pl.tile.store(ma0, [0, 0], oa)
        ba1m: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(ba, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        ra1: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_12, pl.const(24576, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(ba1m, target_memory=pl.Mem.Right)
        ma1: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_13, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, ra1)
        oa_2: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 6144)] = pl.tile.store(ma1, [0, 0], oa_1)
        bb0m: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(bb, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat, transpose=False)
        rb0: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_12, pl.const(24576, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(bb0m, target_memory=pl.Mem.Right)
        mb0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_13, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, rb0)
        ob_1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 4096)] = pl.tile.store(mb0, [0, 0], ob)
        bb1m: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(bb, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat, transpose=False)
        rb1: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_21, pl.const(49152, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(bb1m, target_memory=pl.Mem.Right)
        mb1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_13, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, rb1)
        ob_2: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 4096)] = pl.tile.store(mb1, [0, 0], ob_1)
        mnp: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_13, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, np0)
        onp_1: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 6144)] = pl.tile.store(mnp, [0, 0], onp)
        return onp_1
