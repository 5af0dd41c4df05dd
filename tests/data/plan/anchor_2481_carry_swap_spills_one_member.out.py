# rule §12 #2481 / §S2: `cur, prev = prev, cur` is a writeback cycle (each copy reads the bytes the
# other writes). One member (swap_a, first in iter_arg order) is first copied into a fresh scratch
# buffer of the same space and size, hoisted with the other allocs; prev's buffer then takes the old
# cur and the scratch finally lands in cur's buffer. (Upstream's PR test; its scratch is named
# mem_vec_carry_spill_0, §S2 names it with the next free mem_vec_N.)
# memreuse-test: backend=950 step0=on
# expect: base head_0 mem_vec_2
# expect: base tail_0 mem_vec_3
# expect: moves swap_a_mv swap_b_mv swap_a_mv_mv
# expect: base swap_b_mv mem_vec_3
# expect: base swap_a_mv_mv mem_vec_2
# expect: base swap_a_mv mem_vec_4
# expect: allocs Vec:16384 Vec:16384 Vec:16384
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        head_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        tail_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        for _i, (cur, prev) in pl.range(4, init_values=(head_0, tail_0)):
            swap_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = prev
            swap_b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = cur
            _keep: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(cur, [0, 0], output)
            swap_a_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(swap_a, target_memory=pl.Mem.Vec)
            swap_b_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(swap_b, target_memory=pl.Mem.Vec)
            swap_a_mv_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(swap_a_mv, target_memory=pl.Mem.Vec)
            r_cur, r_prev = pl.yield_(swap_a_mv_mv, swap_b_mv)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(r_prev, [0, 0], output)
        return result
