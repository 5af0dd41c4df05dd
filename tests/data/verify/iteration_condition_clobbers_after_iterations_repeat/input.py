# pypto.program: LateArm
# From iteration 1 on every iteration leaves the buffers as it found them, so the value checker
# replays the next ones instead of running them; the arm `i == 4` writes `x` over `init`'s
# buffer, and the read of `init` after it, on iteration 4 only, sees `x`: the replay of
# iteration 4 decides the other arm, so it runs, and the value is lost.
import pypto.language as pl

@pl.program
class LateArm:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", 0, 1024)], output: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", 0, 1024)]]) -> pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", 0, 1024)]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        init: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        acc0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.tile.exp(init)
        for i, (acc,) in pl.range(6, init_values=(acc0,)):
            if i == 4:
                x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.exp(acc)
            nxt: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, 0, 1024), pl.Mem.Vec] = pl.tile.add(acc, init)
            acc_next: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.tile.move(nxt, target_memory=pl.Mem.Vec)
            acc_rv: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.yield_(acc_next)
        result: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", 0, 1024)] = pl.tile.store(acc_rv, [0, 0], output)
        return result
