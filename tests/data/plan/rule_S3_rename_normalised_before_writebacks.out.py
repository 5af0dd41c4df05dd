# Seed S3 (identity-copy normalisation before the yield fixup) with S2: hand-written IR whose
# carry rename `shifted = lag1` sits on a buffer of its own (mem_vec_5). Normalising it onto
# lag1's mem_vec_2 before the writebacks are ordered is what makes the conflict visible:
# shifted's copy into lag2's buffer must run before nxt's copy overwrites mem_vec_2, and
# mem_vec_5's alloc disappears.
# memreuse-test: backend=950 step0=off
# expect: same init_a shifted nxt_mv
# expect: same init_b shifted_mv
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
            shifted_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(shifted, target_memory=pl.Mem.Vec)
            nxt_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(nxt, target_memory=pl.Mem.Vec)
            out_1, out_2 = pl.yield_(nxt_mv, shifted_mv)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(out_2, [0, 0], output)
        return result
