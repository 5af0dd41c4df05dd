# rule §6.1.3 / seed: "the collector walks the body twice". The tpop producer pipe_next stands after
# the writer down_next; its value reaches down_next's pipe_carry operand only across the back edge.
# The first walk taints mem_vec_0, the second classifies down_next as reading tpop, so down_next may
# not touch the load-derived down_prev (mem_vec_1) and keeps mem_vec_2. M mode (upstream
# test_tpop_reaching_a_writer_across_the_back_edge_blocks_reuse).
# memreuse-test: backend=910b step0=off
# expect: base down_prev mem_vec_1
# expect: base down_next mem_vec_2
# expect: same pipe_seed pipe_next
# expect: moves
# expect: allocs Vec:4096 Vec:4096 Vec:4096
import pypto.language as pl

@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.AIV)
    def main(self, down: pl.InOut[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        pipe_seed: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.create([8, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for _i, (pipe_carry,) in pl.range(2, init_values=(pipe_seed,)):
            down_prev: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096), pl.Mem.Vec] = pl.tile.load(down, [0, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)
            down_next: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_2, 0, 4096), pl.Mem.Vec] = pl.tile.add(down_prev, pipe_carry)
            pipe_next: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
            loop_out: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.yield_(pipe_next)
        result: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(loop_out, [0, 0], down)
        return result
