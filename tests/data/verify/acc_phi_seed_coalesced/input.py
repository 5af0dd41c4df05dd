# pypto.program: AccPhiSeed
import pypto.language as pl

@pl.program
class AccPhiSeed:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 16384)], input_b: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", 0, 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]], cond: pl.Scalar[pl.INT64]) -> pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]:
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 8192)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        lhs: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_left_2, 0, 2048), pl.Mem.Left] = pl.tile.load(input_a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Left)
        rhs: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_right_3, 0, 8192), pl.Mem.Right] = pl.tile.load(input_b, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Right)
        acc: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 4096), pl.Mem.Acc] = pl.tile.matmul(lhs, rhs)
        if cond < 2:
            seed: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 4096), pl.Mem.Acc] = pl.tile.matmul(lhs, rhs)
            r: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 4096), pl.Mem.Acc] = pl.yield_(seed)
        else:
            acc_next: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 4096), pl.Mem.Acc] = pl.tile.matmul_acc(acc, lhs, rhs)
            r: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 4096), pl.Mem.Acc] = pl.yield_(acc_next)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)] = pl.tile.store(r, [0, 0], output)
        return result
