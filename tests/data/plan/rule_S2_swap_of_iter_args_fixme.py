# Seed S2 vs §7.5: a swap written as `pl.yield_(prev, cur)` yields the iter args themselves.
# §7.5 skips yielded iter args in the ForStmt fixup (S1 only widens the IfStmt arms to "variable
# or iter arg"), so no writeback is emitted and the swap is silently lost: out_cur and out_prev
# stay on c0's and p0's buffers, holding the unswapped values.
# FIXME: S2 names exactly this swap as the cycle to break with a scratch buffer; once the
# ForStmt fixup matches yielded iter args too, this should look like
# rule_S2_swap_uses_scratch_buffer (reported to the main engineer as a SPEC question).
# memreuse-test: backend=950 step0=on
# expect: moves
# expect: allocs Vec:16384 Vec:16384
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        c0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        p0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.adds(c0, 1.0)
        for i, (cur, prev) in pl.range(4, init_values=(c0, p0)):
            out_cur, out_prev = pl.yield_(prev, cur)
        diff: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.sub(out_cur, out_prev)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(diff, [0, 0], output)
        return result
