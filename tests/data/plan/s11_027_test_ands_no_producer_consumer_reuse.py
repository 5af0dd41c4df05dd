# rule §11 #27 TestInplaceOps::test_ands_no_producer_consumer_reuse: tile.ands is not in-place safe.
# memreuse-test: backend=950 step0=on
# expect: distinct tile_a tile_b
# expect: base tile_a mem_vec_2
# expect: base tile_b mem_vec_3
# expect: allocs Vec:4096 Vec:4096
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_a: pl.Tensor[[32, 32], pl.INT32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], output: pl.Out[pl.Tensor[[32, 32], pl.INT32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.INT32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        tile_a: pl.Tile[[32, 32], pl.INT32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec, transpose=False)
        tile_b: pl.Tile[[32, 32], pl.INT32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.ands(tile_a, 255)
        result: pl.Tensor[[32, 32], pl.INT32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(tile_b, [0, 0], output)
        return result
