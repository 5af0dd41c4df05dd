# rule §11 #58 TestL0CrossShapeReuse::test_right_buffers_different_shapes_reuse (#1595, #1805; §6.5):
# no shape gate in L0. Left: la (2 KiB, [12,14]) joins the larger, later lc (4 KiB, [18,20]) whose
# base mem_left_13 survives (FFD, bidirectional). Right: rd (32 KiB, [19,20]) joins rb's mem_right_9.
# Mat: b_mat/d_mat on mem_mat_7, c_mat/a_mat on mem_mat_11; Acc: m2 joins m1's mem_acc_10.
# memreuse-test: backend=950 step0=on
# expect: same la lc
# expect: same rb rd
# expect: base la mem_left_13
# expect: base rb mem_right_9
# expect: same b_mat d_mat
# expect: same a_mat c_mat
# expect: same m1 m2
# expect: allocs Mat:32768 Right:32768 Acc:16384 Mat:4096 Left:4096
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], b: pl.Tensor[[64, 256], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)], c: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)], d: pl.Tensor[[128, 128], pl.BF16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 32768)], out1: pl.Out[pl.Tensor[[16, 256], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 16384)]], out2: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[16, 128], pl.FP32]:
        mem_mat_6: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_7: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_left_8: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_9: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_10: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 16384)
        mem_mat_11: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_12: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_left_13: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_14: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_15: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        a_mat: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_mat_6, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat, transpose=False)
        b_mat: pl.Tile[[64, 256], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 256], [64, 256], target_memory=pl.Mem.Mat, transpose=False)
        la: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_left_8, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.extract(a_mat, 0, 0, [16, 64], target_memory=pl.Mem.Left)
        rb: pl.Tile[[64, 256], pl.BF16, pl.MemRef(mem_right_9, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.extract(b_mat, 0, 0, [64, 256], target_memory=pl.Mem.Right)
        m1: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_acc_10, pl.const(0, pl.INT64), 16384), pl.Mem.Acc] = pl.tile.matmul(la, rb)
        out1_1: pl.Tensor[[16, 256], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 16384)] = pl.tile.store(m1, [0, 0], out1)
        c_mat: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_11, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(c, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        d_mat: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_12, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(d, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat, transpose=False)
        lc: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_13, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.extract(c_mat, 0, 0, [16, 128], target_memory=pl.Mem.Left)
        rd: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_14, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.extract(d_mat, 0, 0, [128, 128], target_memory=pl.Mem.Right)
        m2: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_15, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(lc, rd)
        out2_1: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 8192)] = pl.tile.store(m2, [0, 0], out2)
        return out2_1
