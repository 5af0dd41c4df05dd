# rule §6.1.3 control for rule_6_1_3_hazard_through_iter_arg_carry: on 950 the guard is off, so
# down_next reuses down_prev's mem_vec_1 in place (the yield still needs the copy into the carry).
# memreuse-test: backend=950 step0=off
# expect: base down_prev mem_vec_1
# expect: base down_next mem_vec_1
# expect: moves down_next_mv
# expect: allocs Vec:4096 Vec:4096
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
