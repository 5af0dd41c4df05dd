# rule §11 #36 TestControlFlow::test_var_used_in_nested_if_shares_iter_arg_buffer (§4.2): Step 0
# follows the loop yield through the if return var into both arms (tile_c is retargeted; the
# iter-arg arm is already there), so everything lives on the carry buffer.
# memreuse-test: backend=950 step0=on exact=on
# expect: same tile_a tile_c if_result loop_out
# expect: base tile_c mem_vec_2
# expect: allocs Vec:16384
# expect: moves
# expect: verify-fails V003
# PyPTO reads tile_a again inside the loop after Step 0 put tile_c (each iteration's value) on
# tile_a's buffer, so iterations 2..4 read a clobbered tile_a: upstream's test encodes a
# miscompile, which memreuse reproduces and its verifier reports.
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
                tile_c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(acc, tile_a)
                if_result: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(tile_c)
            else:
                if_result: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(acc)
            loop_out: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(if_result)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(loop_out, [0, 0], output)
        return result
