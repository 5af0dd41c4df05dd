# rule §11 #63 TestAscend910BLoadTpopHazard::test_ascend910b_split_aiv_does_not_reuse_load_buffer
# (§6.1.3, §6.2 gate 2; seed "Ascend910B load + tpop_from_aic hazard"). M mode: hand-written
# post-InitMemRef IR with a hand-typed tpop. down_next reads a tpop value and would touch the
# load-derived down_prev at its last use: blocked, so it joins pipe_chunk's mem_vec_1.
# memreuse-test: backend=910b step0=off
# expect: base down_prev mem_vec_0
# expect: base down_next mem_vec_1
# expect: same pipe_chunk down_next
# expect: distinct down_prev down_next
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
        down_prev: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(down, [0, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)
        pipe_chunk: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096), pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
        down_next: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_2, 0, 4096), pl.Mem.Vec] = pl.tile.add(down_prev, pipe_chunk)
        result: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(down_next, [0, 0], down)
        return result
