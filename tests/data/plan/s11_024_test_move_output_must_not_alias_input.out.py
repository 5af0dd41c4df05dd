# rule §11 #24 TestInplaceOps::test_move_output_must_not_alias_input (#2100/#2106): tile.move is not
# in-place safe, so a Vec->Vec move never lands on its source's buffer.
# (Program reconstructed from the §11 row: the upstream test body is not in the reference data.)
# memreuse-test: backend=950 step0=on
# expect: distinct tile_a tile_b
# expect: base tile_a mem_vec_2
# expect: base tile_b mem_vec_3
# expect: allocs Vec:4096 Vec:4096
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_a: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], output: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        tile_a: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec, transpose=False)
        tile_b: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(tile_a, target_memory=pl.Mem.Vec)
        result: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(tile_b, [0, 0], output)
        return result
