# pypto.program: SecondIteration
# The loop runs iteration by iteration (its variable decides a condition, never true here), and
# every iteration decides the same. Iteration 0 reads `init`, then writes `x` over it: it does
# not leave the buffers as it found them, so iteration 1 runs too, and its read of `init` sees
# `x`: the value is lost.
import pypto.language as pl

@pl.program
class SecondIteration:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", 0, 1024)], output: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", 0, 1024)]]) -> pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", 0, 1024)]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        init: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        acc0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.tile.exp(init)
        for i, (acc,) in pl.range(6, init_values=(acc0,)):
            if i == 100:
                y: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, 0, 1024), pl.Mem.Vec] = pl.tile.exp(acc)
            nxt: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, 0, 1024), pl.Mem.Vec] = pl.tile.add(acc, init)
            x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.exp(nxt)
            acc_next: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.tile.move(nxt, target_memory=pl.Mem.Vec)
            acc_rv: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.yield_(acc_next)
        result: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", 0, 1024)] = pl.tile.store(acc_rv, [0, 0], output)
        return result
