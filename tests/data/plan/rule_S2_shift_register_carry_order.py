# Seed S2 (ordered loop-carry writebacks, #2481): a shift register `lag2 = lag1; lag1 = nxt`.
# Step 0 declines both producers (nxt: lag1 is still read after it; shifted: a bare rename), so
# both carries need a writeback. shifted (on lag1's mem_vec_2) must be copied into lag2's
# mem_vec_3 before nxt's copy overwrites mem_vec_2, whatever the iter_arg order says.
# memreuse-test: backend=950 step0=on
# expect: base nxt mem_vec_4
# expect: same init_a shifted nxt_mv out_1
# expect: same init_b shifted_mv out_2
# expect: moves shifted_mv nxt_mv
# expect: allocs Vec:16384 Vec:16384 Vec:16384
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        init_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        init_b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        for i, (lag1, lag2) in pl.range(4, init_values=(init_a, init_b)):
            nxt: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
            shifted: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = lag1
            out_1, out_2 = pl.yield_(nxt, shifted)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(out_2, [0, 0], output)
        return result
