# rule §6.7 shed budget, the in-budget side: 256 groups.
# r0 and r1 (24576 B Right, lifetime-disjoint) are stages 0 and 1 of every pipeline group
# 0..255; np0 (24576 B) is live across both, so np0 | r0 | r1 = 73728 > 65536 until every group
# is shed to F = 1 (each group starts at F = min(2, 65536 / 24576) = 2; MaxRelief ties on the slot
# and sheds the smallest id first, one group per re-pack).
# The 256th re-pack (still within the 256 budget) sheds group 255 and the space fits: r0 == r1,
# every group gets its PH-MR-001 hint, no fallback warning. R mode.
# memreuse-test: backend=910b step0=off
# expect: same r0 r1
# expect: distinct np0 r0
# expect: diag PH-MR-001 software pipelining requested depth 2 for pipeline group 255 in Right, but only 1 of 2 buffers fit (24576 B per stage, 65536 B free) — stages 1 apart share storage and serialize. The operand would fit depth 2 on its own, but co-resident buffers / other pipeline groups over-subscribe the space; relieve the co-residents (smaller or fewer co-live tiles) or reduce the pipeline depth to 1.
# expect: nodiag MR-W001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, la: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], bnp: pl.Tensor[[128, 96], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 24576)], b: pl.Tensor[[128, 96], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 24576)], onp: pl.Out[pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 6144)]], o: pl.Out[pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 6144)]]) -> pl.Tensor[[16, 96], pl.FP32]:
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_mat_7: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 24576)
        mem_right_8: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 24576)
        mem_right_10: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 24576)
        mem_acc_11: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 6144)
        lam: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(la, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        lt: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(lam, target_memory=pl.Mem.Left)
        bnpm: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(bnp, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        np0: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_8, pl.const(0, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(bnpm, target_memory=pl.Mem.Right)
        b0m: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        r0: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_10, pl.const(0, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(b0m, target_memory=pl.Mem.Right)
        m0: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_11, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, r0)
        o_1: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 6144)] = pl.tile.store(m0, [0, 0], o)
        b1m: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        r1: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_10, pl.const(0, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(b1m, target_memory=pl.Mem.Right)
        m1: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_11, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, r1)
        o_2: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 6144)] = pl.tile.store(m1, [0, 0], o_1)
        mnp: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_11, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, np0)
        onp_1: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 6144)] = pl.tile.store(mnp, [0, 0], onp)
        return onp_1
