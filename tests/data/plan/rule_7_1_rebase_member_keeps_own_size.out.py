# rule §7.1: the joining group's representative takes the target MemRef itself (size 16384), but
# another member keeps its own size: small_r, a pure alias of small before planning, becomes
# (v2, 0, 4096) (rel 0, size 4096 != 16384), not the target MemRef.
# memreuse-test: backend=950 step0=on
# expect: same big small small_r
# expect: memref small mem_vec_2 0 16384
# expect: memref small_r mem_vec_2 0 4096
# expect: allocs Vec:16384
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], input_s: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)]], out_s: pl.Out[pl.Tensor[[1024, 1], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[1024, 1], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        big: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        _s1: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)] = pl.tile.store(big, [0, 0], output)
        small: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_s, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec, transpose=False)
        small_r: pl.Tile[[1024, 1], pl.FP32, pl.MemRef(mem_vec_2, 0, 4096), pl.Mem.Vec] = pl.tile.reshape(small, [1024, 1])
        result: pl.Tensor[[1024, 1], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 4096)] = pl.tile.store(small_r, [0, 0], out_s)
        return result
