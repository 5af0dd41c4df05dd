# rule §11 #55 TestMetadata::test_preserves_split_metadata (§1.8, §7): the function type and its
# split attr survive planning; tile_b reuses tile_a's buffer (no 910B hazard on 950).
# memreuse-test: backend=950 step0=on function=vector_producer
# expect: same tile_a tile_b
# expect: base tile_a mem_vec_2
# expect: allocs Vec:512
# expect: moves
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.AIV)
    def vector_producer(self, input_tensor: pl.Tensor[[16, 16], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 512)], output: pl.Out[pl.Tensor[[16, 16], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)]]) -> pl.Tensor[[16, 16], pl.FP16]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        tile_a: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        tile_b: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(tile_a, tile_a)
        result: pl.Tensor[[16, 16], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)] = pl.tile.store(tile_b, [0, 0], output)
        return result
