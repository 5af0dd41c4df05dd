# rule §6.1.4 / §13 tile.cast: only a widening cast forbids its input (§11 #72). A same-width cast
# (FP32 -> INT32) and a narrowing cast (INT32 -> BF16) stay in place on t0's buffer.
# memreuse-test: backend=950 step0=on
# expect: same t0 i h
# expect: base h mem_vec_2
# expect: allocs Vec:1024
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], out: pl.Out[pl.Tensor[[16, 16], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)]]) -> pl.Tensor[[16, 16], pl.BF16]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        t0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        i: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.cast(t0, target_type=pl.INT32, mode='round')
        h: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.cast(i, target_type=pl.BF16, mode='round')
        res: pl.Tensor[[16, 16], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)] = pl.tile.store(h, [0, 0], out)
        return res
