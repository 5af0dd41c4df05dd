# rule §11 #25 TestInplaceOps::test_inplace_unsafe_op_allows_non_producer_consumer_reuse: recip's
# no-alias rule only concerns its operand tile_x; tile_a, tile_c, tile_x chain onto v4, and tile_b
# is blocked from that buffer only because tile_x (a member) is its forbidden operand.
# memreuse-test: backend=950 step0=on
# expect: same tile_a tile_c tile_x
# expect: base tile_a mem_vec_4
# expect: base tile_b mem_vec_7
# expect: allocs Vec:4096 Vec:4096
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_a: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], input_c: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)], input_x: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)], output: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        tile_a: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec, transpose=False)
        _s1: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 4096)] = pl.tile.store(tile_a, [0, 0], output)
        tile_c: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(input_c, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec, transpose=False)
        _s2: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 4096)] = pl.tile.store(tile_c, [0, 0], output)
        tile_x: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(input_x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec, transpose=False)
        tile_b: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.recip(tile_x)
        result: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 4096)] = pl.tile.store(tile_b, [0, 0], output)
        return result
