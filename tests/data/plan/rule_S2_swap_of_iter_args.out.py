# Seed S2: a swap written as `pl.yield_(prev, cur)` yields the iter args themselves. The loop
# fixup matches yielded values as "variable or iter arg" (as S1 does for if arms), so each carry
# gets a writeback; the two writebacks read what the other writes, so the first carry's value
# goes through a fresh scratch buffer (hoisted alloc mem_vec_N, next free number) first.
# memreuse-test: backend=950 step0=on
# expect: moves prev_mv cur_mv prev_mv_mv
# expect: same c0 prev_mv_mv out_cur
# expect: same p0 cur_mv out_prev
# expect: distinct prev_mv c0 p0
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        c0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        p0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.adds(c0, 1.0)
        for i, (cur, prev) in pl.range(4, init_values=(c0, p0)):
            prev_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(prev, target_memory=pl.Mem.Vec)
            cur_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(cur, target_memory=pl.Mem.Vec)
            prev_mv_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(prev_mv, target_memory=pl.Mem.Vec)
            out_cur, out_prev = pl.yield_(prev_mv_mv, cur_mv)
        diff: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.sub(out_cur, out_prev)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(diff, [0, 0], output)
        return result
