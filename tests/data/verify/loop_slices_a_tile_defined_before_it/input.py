# pypto.program: SliceInLoop
# Every iteration takes the first row of `pool`, made before the loop, through a slice, and
# writes `e` into the rest of `pool`'s buffer: the slice is the only use of `pool`, so `pool`
# must stay where it is for every iteration's slice to find it, and no read sees a wrong value.
import pypto.language as pl

@pl.program
class SliceInLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_0", 0, 32768)], output: pl.Out[pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_2", 0, 32768)]]) -> pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_2", 0, 32768)]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        pool: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 512), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
        for i in pl.range(8):
            row: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 512), pl.Mem.Vec] = pl.tile.slice(pool, [1, 128], [0, 0])
            e: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_0, 512, 512), pl.Mem.Vec] = pl.tile.exp(row)
            out_i: pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_2", 0, 32768)] = pl.tile.store(e, [i, 0], output)
        return output
