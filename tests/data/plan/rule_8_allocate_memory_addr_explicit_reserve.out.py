# rule §8, §2.5: an explicit reserve window [8192, 12288) ends the reserved region at 12288;
# tiles go above it (12288, 28672) although [0, 8192) is free, and the call is left as written.
# Upstream's test runs AllocateMemoryAddr straight after InitMemRef; memreuse always runs
# MemoryReuse first, so tile_c = add(tile_a, tile_b) keeps tile_a live across tile_b's definition
# and the two keep their own bases (tile_c takes tile_a's).
# memreuse-test: backend=950 step0=on addresses=on
# expect: memref tile_a mem_vec_2 12288 16384
# expect: memref tile_b mem_vec_3 28672 16384
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        pl.system.reserve_buffer(name="scratch", size=4096, base=8192)
        tile_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(12288, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        tile_b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(28672, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(tile_a, tile_a)
        tile_c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(12288, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(tile_a, tile_b)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(tile_c, [0, 0], output)
        return result
