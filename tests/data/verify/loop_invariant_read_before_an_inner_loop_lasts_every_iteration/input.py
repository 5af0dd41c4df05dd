# pypto.program: InvariantBeforeInnerLoop
# Every iteration of the outer loop reads `src` before an inner loop that writes `acc` into the
# other half of `src`'s buffer: `src` is read again on the next outer iteration, so nothing may
# forget it at the inner loop's head, and no read sees a wrong value.
import pypto.language as pl

@pl.program
class InvariantBeforeInnerLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]]) -> pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]:
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        src: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_7, 0, 512), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        for i in pl.range(8):
            e: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_8, 0, 512), pl.Mem.Vec] = pl.tile.exp(src)
            for j in pl.range(4):
                acc: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_7, 512, 512), pl.Mem.Vec] = pl.tile.exp(e)
                out_j: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)] = pl.tile.store(acc, [j, 0], output)
            out_i: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)] = pl.tile.store(e, [i, 0], output)
        return output
