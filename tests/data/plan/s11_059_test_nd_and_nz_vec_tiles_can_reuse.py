# rule §11 #59 TestStorageLayoutReuse::test_nd_and_nz_vec_tiles_can_reuse (#1788; §6.2: no layout gate):
# lifetime-disjoint ND and NZ Vec tiles of equal size share one buffer.
# memreuse-test: backend=950 step0=on
# expect: same tile_nd tile_nz
# expect: base tile_nz mem_vec_3
# expect: allocs Vec:8192
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, inp: pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], out_nd: pl.Out[pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)]], out_nz: pl.Out[pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[64, 64], pl.BF16]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        tile_nd: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(inp, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        _a: pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)] = pl.tile.store(tile_nd, [0, 0], out_nd)
        tile_nz: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, fractal=1024)] = pl.tile.load(inp, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        result: pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(tile_nz, [0, 0], out_nz)
        return result
