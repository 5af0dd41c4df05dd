# rule §11 #56 TestStructuralShapeEquality::test_pointer_distinct_but_structurally_equal_shape_reuses_memref
# (§6.2: no shape gate): memory_reuse alone on hand-built IR with composite shape dims and no
# alloc statements; tile_b takes tile_a's MemRef. Our parser requires every on-chip base to be
# defined by a `tile.alloc` and every MemRef to fit in it (E005/E006), so unlike upstream's
# hand-built body (bases mem_vec_0 at 0 and mem_vec_1 at 16384, no allocs) this fixture
# declares both allocs and puts tile_b at offset 0; mem_vec_1's alloc is then removed.
# memreuse-test: backend=950 step0=off
# expect: same tile_a tile_b
# expect: memref tile_b mem_vec_0 0 16384
# expect: allocs Vec:16384
# expect: moves
import pypto.language as pl

@pl.program
class test_struct_shape_reuse:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_x: pl.Tensor[[64, 64], pl.FP32], output_x: pl.Tensor[[64, 64], pl.FP32]):
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        tile_a: pl.Tile[[pl.const(32, pl.INT64) + pl.const(32, pl.INT64), pl.const(64, pl.INT64)], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        store_a: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(tile_a, [0, 0], output_x)
        tile_b: pl.Tile[[pl.const(32, pl.INT64) + pl.const(32, pl.INT64), pl.const(64, pl.INT64)], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        store_b: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(tile_b, [0, 0], output_x)
        return
