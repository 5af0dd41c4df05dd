# pypto.program: LoopClobbersInvariant
# Every iteration reads all of `src`, and `e` is written over it: iteration 1 reads `e`'s
# bytes where it expects `src`.
import pypto.language as pl

@pl.program
class LoopClobbersInvariant:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 16384)], input_b: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", 0, 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]]) -> pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]:
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        src: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_7, 0, 512), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        for i in pl.range(8):
            e: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_7, 0, 512), pl.Mem.Vec] = pl.tile.exp(src)
            out_i: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)] = pl.tile.store(e, [i, 0], output)
        return output
