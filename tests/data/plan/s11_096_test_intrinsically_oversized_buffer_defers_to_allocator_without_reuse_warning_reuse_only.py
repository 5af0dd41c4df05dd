# rule §11 #96 TestCapacityGatedReuse::test_intrinsically_oversized_buffer_defers_to_allocator_without_reuse_warning,
# MemoryReuse only (Opaque function, so AllocateMemoryAddr does not run, §8): Right overflows but
# b_right alone exceeds the space, so the fallback warning is suppressed (§9.2). R mode.
# memreuse-test: backend=910b step0=off
# expect: allocs Mat:65536 Mat:131072 Left:65536 Right:131072 Acc:131072
# expect: nodiag MR-W001
# expect: nodiag PH-MR-001
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def kernel(self, a: pl.Tensor[[128, 256], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)], b: pl.Tensor[[256, 256], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 131072)], out: pl.Out[pl.Tensor[[128, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 131072)]]) -> pl.Tensor[[128, 256], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 65536)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 131072)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 65536)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 131072)
        mem_acc_7: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 131072)
        a_mat: pl.Tile[[128, 256], pl.FP16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 65536), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 256], [128, 256], target_memory=pl.Mem.Mat, transpose=False)
        b_mat: pl.Tile[[256, 256], pl.FP16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 131072), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 256], [256, 256], target_memory=pl.Mem.Mat, transpose=False)
        a_left: pl.Tile[[128, 256], pl.FP16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 65536), pl.Mem.Left] = pl.tile.extract(a_mat, 0, 0, [128, 256], target_memory=pl.Mem.Left)
        b_right: pl.Tile[[256, 256], pl.FP16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 131072), pl.Mem.Right] = pl.tile.extract(b_mat, 0, 0, [256, 256], target_memory=pl.Mem.Right)
        acc: pl.Tile[[128, 256], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 131072), pl.Mem.Acc] = pl.tile.matmul(a_left, b_right)
        out_1: pl.Tensor[[128, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 131072)] = pl.tile.store(acc, [0, 0], out)
        return out_1
