# Seed S1: when the then arm yields the loop's iter arg, that iter arg's buffer is the phi
# target (the then arm wins); InitMemRef had put the phi on the else arm's buffer (an iter-arg
# yield is not a plain Var for it), so the phi is retyped onto the carry buffer and the else
# arm's tile_c is copied there. The loop yield then needs no copy.
# memreuse-test: backend=950 step0=off
# expect: base tile_c mem_vec_3
# expect: same tile_a tile_c_mv if_result loop_out
# expect: moves tile_c_mv
# expect: allocs Vec:16384 Vec:16384
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        tile_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        for i, (acc,) in pl.range(4, init_values=(tile_a,)):
            if i < 2:
                if_result: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(acc)
            else:
                tile_c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(acc, acc)
                if_result: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(tile_c)
            loop_out: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(if_result)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(loop_out, [0, 0], output)
        return result
