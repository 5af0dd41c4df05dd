# rule §6.1.3: tile.fillpad of a load-derived tile is load-derived. fp (its own group, coalesced onto
# ld's mem_vec_0) is last read by w, which also reads the tpop value tp: w may not touch fp's buffer
# and takes tp's mem_vec_2 instead.
# memreuse-test: backend=910b step0=off
# expect: same ld fp
# expect: same tp w
# expect: base w mem_vec_2
# expect: distinct fp w
# expect: allocs Vec:4096 Vec:4096
import pypto.language as pl

@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.AIV)
    def main(self, down: pl.InOut[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        ld: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(down, [0, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)
        fp: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.fillpad(ld, pad_value=pl.PadValue.zero)
        tp: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_2, 0, 4096), pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
        w: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_2, 0, 4096), pl.Mem.Vec] = pl.tile.add(fp, tp)
        result: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(w, [0, 0], down)
        return result
