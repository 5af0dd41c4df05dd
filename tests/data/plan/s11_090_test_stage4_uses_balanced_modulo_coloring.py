# rule §11 #90 TestCapacityGatedReuse::test_stage4_uses_balanced_modulo_coloring (§6.6): four 32768 B stages,
# F = min(4, 2) = 2: residues {r0, r2} and {r1, r3}, every adjacent pair apart; allocation fits
# (65536 B). Slot-bound hint, 2 of 4. R mode (upstream's non-SSA `out` chain is spelled out_1..out_4).
# memreuse-test: backend=910b step0=off addresses=on
# expect: same r0 r2
# expect: same r1 r3
# expect: distinct r0 r1
# expect: diag PH-MR-001 software pipelining requested depth 4 for pipeline group 0 in Right, but only 2 of 4 buffers fit (32768 B per stage, 65536 B free) — stages 2 apart share storage and serialize. This operand alone needs 131072 B for depth 4; shrink the per-stage tile to <= 16384 B, or reduce the pipeline depth (e.g. `pl.pipeline(stage=)`) to 2.
# expect: nodiag MR-W001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], b: pl.Tensor[[128, 128], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)], out: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[16, 128], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_7: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_right_8: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_9: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_right_10: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_11: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_right_12: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_13: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        am: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        bm: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat, transpose=False)
        lt: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r0: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0"})
        m0: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(lt, r0)
        out_1: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m0, [0, 0], out)
        r1: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_8, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})
        m1: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(lt, r1)
        out_2: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m1, [0, 0], out_1)
        r2: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_10, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:2"})
        m2: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_11, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(lt, r2)
        out_3: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m2, [0, 0], out_2)
        r3: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_12, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:3"})
        m3: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_13, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(lt, r3)
        out_4: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m3, [0, 0], out_3)
        return out_4
