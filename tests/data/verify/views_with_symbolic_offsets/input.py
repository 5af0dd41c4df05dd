# pypto.program: SymbolicViews
import pypto.language as pl

@pl.program
class SymbolicViews:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 16384)], input_b: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", 0, 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]]) -> pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]:
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        src: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_7, 0, 512), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        for i in pl.range(8):
            row: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_7, i * 64, 64), pl.Mem.Vec] = pl.tile.slice(src, [1, 16], [i, 0])
            e: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_8, 0, 64), pl.Mem.Vec] = pl.tile.exp(row)
            out_i: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)] = pl.tile.store(e, [i, 0], output)
        after: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_7, 0, 512), pl.Mem.Vec] = pl.tile.load(input_b, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)] = pl.tile.store(after, [0, 0], output)
        return result
