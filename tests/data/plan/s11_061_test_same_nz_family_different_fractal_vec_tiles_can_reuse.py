# rule §11 #61 TestStorageLayoutReuse::test_same_nz_family_different_fractal_vec_tiles_can_reuse (#1788;
# §6.2): two NZ Vec tiles differing only in fractal size share one buffer.
# memreuse-test: backend=950 step0=on
# expect: same tile_a tile_b
# expect: base tile_b mem_vec_3
# expect: allocs Vec:8192
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, inp: pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], out_a: pl.Out[pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)]], out_b: pl.Out[pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[64, 64], pl.BF16]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        tile_a: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, fractal=512)] = pl.tile.load(inp, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        _a: pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)] = pl.tile.store(tile_a, [0, 0], out_a)
        tile_b: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, fractal=1024)] = pl.tile.load(inp, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        result: pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(tile_b, [0, 0], out_b)
        return result
