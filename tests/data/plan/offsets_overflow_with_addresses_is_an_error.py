# --planner dsa --addresses: the same overflow as
# offsets_overflow_without_addresses_is_left_to_allocate_memory_addr is the error
# AllocateMemoryAddr would stop with (rule §8).
# memreuse-test: backend=910b step0=off planner=dsa addresses=on
# expect: error MR-E008 Right needs 81920 bytes here
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, la: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], b: pl.Tensor[[128, 80], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 20480)], o0: pl.Out[pl.Tensor[[16, 80], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 5120)]], o1: pl.Out[pl.Tensor[[16, 80], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 5120)]], o2: pl.Out[pl.Tensor[[16, 80], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 5120)]], o3: pl.Out[pl.Tensor[[16, 80], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 5120)]]) -> pl.Tensor[[16, 80], pl.FP32]:
        mem_mat_6: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_left_7: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_mat_8: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 20480)
        mem_right_9: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 20480)
        mem_mat_10: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 20480)
        mem_right_11: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 20480)
        mem_mat_12: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 20480)
        mem_right_13: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 20480)
        mem_mat_14: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 20480)
        mem_right_15: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 20480)
        mem_acc_16: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 5120)
        mem_acc_17: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 5120)
        mem_acc_18: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 5120)
        mem_acc_19: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 5120)
        lam: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_6, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(la, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        lt: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_7, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(lam, target_memory=pl.Mem.Left)
        b0m: pl.Tile[[128, 80], pl.BF16, pl.MemRef(mem_mat_8, pl.const(0, pl.INT64), 20480), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 80], [128, 80], target_memory=pl.Mem.Mat, transpose=False)
        r0: pl.Tile[[128, 80], pl.BF16, pl.MemRef(mem_right_9, pl.const(0, pl.INT64), 20480), pl.Mem.Right] = pl.tile.move(b0m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0"})
        b1m: pl.Tile[[128, 80], pl.BF16, pl.MemRef(mem_mat_10, pl.const(0, pl.INT64), 20480), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 80], [128, 80], target_memory=pl.Mem.Mat, transpose=False)
        r1: pl.Tile[[128, 80], pl.BF16, pl.MemRef(mem_right_11, pl.const(0, pl.INT64), 20480), pl.Mem.Right] = pl.tile.move(b1m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})
        b2m: pl.Tile[[128, 80], pl.BF16, pl.MemRef(mem_mat_12, pl.const(0, pl.INT64), 20480), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 80], [128, 80], target_memory=pl.Mem.Mat, transpose=False)
        r2: pl.Tile[[128, 80], pl.BF16, pl.MemRef(mem_right_13, pl.const(0, pl.INT64), 20480), pl.Mem.Right] = pl.tile.move(b2m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:2"})
        b3m: pl.Tile[[128, 80], pl.BF16, pl.MemRef(mem_mat_14, pl.const(0, pl.INT64), 20480), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 80], [128, 80], target_memory=pl.Mem.Mat, transpose=False)
        r3: pl.Tile[[128, 80], pl.BF16, pl.MemRef(mem_right_15, pl.const(0, pl.INT64), 20480), pl.Mem.Right] = pl.tile.move(b3m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:3"})
        m0: pl.Tile[[16, 80], pl.FP32, pl.MemRef(mem_acc_16, pl.const(0, pl.INT64), 5120), pl.Mem.Acc] = pl.tile.matmul(lt, r0)
        o0_1: pl.Tensor[[16, 80], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 5120)] = pl.tile.store(m0, [0, 0], o0)
        m1: pl.Tile[[16, 80], pl.FP32, pl.MemRef(mem_acc_17, pl.const(0, pl.INT64), 5120), pl.Mem.Acc] = pl.tile.matmul(lt, r1)
        o1_1: pl.Tensor[[16, 80], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 5120)] = pl.tile.store(m1, [0, 0], o1)
        m2: pl.Tile[[16, 80], pl.FP32, pl.MemRef(mem_acc_18, pl.const(0, pl.INT64), 5120), pl.Mem.Acc] = pl.tile.matmul(lt, r2)
        o2_1: pl.Tensor[[16, 80], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 5120)] = pl.tile.store(m2, [0, 0], o2)
        m3: pl.Tile[[16, 80], pl.FP32, pl.MemRef(mem_acc_19, pl.const(0, pl.INT64), 5120), pl.Mem.Acc] = pl.tile.matmul(lt, r3)
        o3_1: pl.Tensor[[16, 80], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 5120)] = pl.tile.store(m3, [0, 0], o3)
        return o3_1
