# rule §11 #22 TestInplaceOps::test_concat_output_must_not_alias_either_source (#2008): tile.concat
# is not in-place safe; tile_c (packed first, largest) forbids both sources, which are co-live,
# so there are three buffers.
# memreuse-test: backend=950 step0=on
# expect: distinct tile_a tile_b tile_c
# expect: base tile_a mem_vec_3
# expect: base tile_b mem_vec_4
# expect: base tile_c mem_vec_5
# expect: allocs Vec:2048 Vec:2048 Vec:4096
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[32, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], b: pl.Tensor[[32, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)], out: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        tile_a: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 16], [32, 16], target_memory=pl.Mem.Vec, transpose=False)
        tile_b: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [32, 16], [32, 16], target_memory=pl.Mem.Vec, transpose=False)
        tile_c: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.concat(tile_a, tile_b)
        result: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(tile_c, [0, 0], out)
        return result
