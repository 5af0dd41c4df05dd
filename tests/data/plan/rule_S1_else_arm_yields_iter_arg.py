# Seed S1 (if arms matched as "variable or iter arg", #2481): without Step 0, the then arm's
# tile_c keeps its own buffer and the phi sits on it; the else arm yields the loop's iter arg acc
# (on the carry buffer) and so gets a copy into the phi buffer — without it that path would leave
# the phi unwritten. The loop yield then copies the phi back onto the carry buffer.
# memreuse-test: backend=950 step0=off
# expect: same tile_c acc_mv if_result
# expect: base tile_c mem_vec_3
# expect: same tile_a if_result_mv loop_out
# expect: moves acc_mv if_result_mv
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
                tile_c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(acc, acc)
                if_result: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(tile_c)
            else:
                if_result: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(acc)
            loop_out: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(if_result)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(loop_out, [0, 0], output)
        return result
