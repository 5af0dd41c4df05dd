# pypto.program: NestedLateArm
# Both loops run iteration by iteration (the condition reads both variables). Iterations
# repeat in both, so each loop replays its iterations' decisions instead of running them; the
# arm `i + j == 6` writes `x` over `init`'s buffer only on the last inner iteration of the last
# outer one, where the read of `init` after it sees `x`: the outer replay meets the inner
# loop's decisions, the replayed ones included, so that outer iteration runs, and the value
# is lost.
import pypto.language as pl

@pl.program
class NestedLateArm:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", 0, 1024)], output: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", 0, 1024)]]) -> pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", 0, 1024)]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        init: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        acc0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.tile.exp(init)
        for j, (acc_o,) in pl.range(4, init_values=(acc0,)):
            for i, (acc,) in pl.range(4, init_values=(acc_o,)):
                if i + j == 6:
                    x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.exp(acc)
                nxt: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, 0, 1024), pl.Mem.Vec] = pl.tile.add(acc, init)
                acc_next: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.tile.move(nxt, target_memory=pl.Mem.Vec)
                acc_rv: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.yield_(acc_next)
            acc_o_rv: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.yield_(acc_rv)
        result: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", 0, 1024)] = pl.tile.store(acc_o_rv, [0, 0], output)
        return result
