# rule §11 #8 TestDtype::test_cross_dtype_can_reuse: no dtype gate; the narrowing FP32->BF16 cast
# forbids nothing (§6.1.4), so all five tiles share the 16384-byte buffer; the BF16 tiles take
# the representative's MemRef (size 16384, §7.1).
# memreuse-test: backend=950 step0=on
# expect: same tile_a tile_b tile_cast tile_d tile_e
# expect: base tile_a mem_vec_2
# expect: memref tile_cast mem_vec_2 0 16384
# expect: memref tile_e mem_vec_2 0 16384
# expect: allocs Vec:16384
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        tile_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        tile_b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(tile_a, tile_a)
        tile_cast: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.cast(tile_b, target_type=pl.BF16, mode='round')
        tile_d: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(tile_cast, tile_cast)
        tile_e: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(tile_d, tile_d)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(tile_e, [0, 0], output)
        return result
