# rule §6.3: intervals are packed by size descending, so the later 16384-byte tile big opens the
# first buffer and the earlier 4096-byte small_a joins it (reuse is bidirectional), taking the
# representative's MemRef, size included (§7.1). small_b overlaps small_a and keeps its own base.
# memreuse-test: backend=950 step0=on
# expect: same small_a big
# expect: base small_a mem_vec_6
# expect: memref small_a mem_vec_6 0 16384
# expect: base small_b mem_vec_5
# expect: allocs Vec:4096 Vec:16384
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_s: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)], out_s: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        small_a: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_s, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec, transpose=False)
        small_b: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(input_s, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec, transpose=False)
        _s1: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(small_a, [0, 0], out_s)
        _s2: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(small_b, [0, 0], out_s)
        big: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 16384)] = pl.tile.store(big, [0, 0], output)
        return result
