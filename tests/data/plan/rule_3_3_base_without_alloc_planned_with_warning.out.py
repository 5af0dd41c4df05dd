# rule §3.3, §7.7 (real dumps and upstream's own tests): tile_a sits on mem_vec_9, which no
# tile.alloc defines. PyPTO's MemoryReuse plans on MemRefs alone, so tile_a is planned like any
# other tile: tile_b, defined after tile_a's last use, joins its buffer, and tile_b's own alloc
# is removed as unused. The plan says so with a warning at tile_a, and is not refused.
# memreuse-test: backend=950 step0=off
# expect: same tile_a tile_b
# expect: base tile_b mem_vec_9
# expect: allocs
# expect: diag MR-W002 tile 'tile_a' is placed on 'mem_vec_9'
# expect: moves
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        s0: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(tile_a, [0, 0], output)
        tile_b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(tile_b, [0, 0], output)
        return result
