# rule §6.1.3 / seed "Ascend910B load + tpop_from_aic hazard": a tpop value reaching the writer
# through a loop carry. pipe_carry is an IterArg (never an AssignStmt def), classified by the taint
# of its base mem_vec_0 (pipe_chunk's tpop buffer). down_next therefore reads tpop and may not touch
# the load-derived down_prev's mem_vec_1; pipe_chunk is live across the loop, so down_next keeps
# mem_vec_2 and YieldFixup copies it into the carry buffer (§7.5). M mode (upstream
# test_iter_arg_tpop_operand_still_blocks_load_buffer_reuse).
# memreuse-test: backend=910b step0=off
# expect: base down_prev mem_vec_1
# expect: base down_next mem_vec_2
# expect: moves down_next_mv
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
        pipe_chunk: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
        for _i, (pipe_carry,) in pl.range(2, init_values=(pipe_chunk,)):
            down_prev: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096), pl.Mem.Vec] = pl.tile.load(down, [0, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)
            down_next: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_2, 0, 4096), pl.Mem.Vec] = pl.tile.add(down_prev, pipe_carry)
            loop_out: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.yield_(down_next)
        result: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(loop_out, [0, 0], down)
        return result
