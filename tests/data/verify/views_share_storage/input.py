# pypto.program: ViewsShareStorage
import pypto.language as pl

@pl.program
class ViewsShareStorage:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 16384)], input_b: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", 0, 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]]) -> pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]:
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        src: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_7, 0, 512), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        s0: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_7, 0, 64), pl.Mem.Vec] = pl.tile.slice(src, [1, 16], [0, 0])
        r0: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_7, 0, 64), pl.Mem.Vec] = pl.tile.reshape(s0, [16, 1])
        s1: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_7, 64, 64), pl.Mem.Vec] = pl.tile.slice(src, [1, 16], [1, 0])
        r1: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_7, 64, 64), pl.Mem.Vec] = pl.tile.reshape(s1, [16, 1])
        late: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_7, 0, 64), pl.Mem.Vec] = pl.tile.exp(r0)
        both: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_7, 128, 64), pl.Mem.Vec] = pl.tile.add(late, r1)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)] = pl.tile.store(both, [0, 0], output)
        return result
