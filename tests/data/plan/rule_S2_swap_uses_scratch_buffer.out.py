# Seed S2 (carry cycles): a swap `cur, prev = prev, cur` written as two renames. Each writeback
# reads the buffer the other writes, so no order works: the first carry's value is copied into
# a fresh scratch buffer (a new alloc hoisted to the body head, named with the next free number,
# mem_vec_7, after mem_vec_6 of diff) ahead of the writebacks, and its own writeback reads the scratch.
# Moves are named after the value they read (`nc_mv` copies nc, `nc_mv_mv` copies the scratch).
# memreuse-test: backend=950 step0=on
# expect: same c0 nc_mv_mv out_cur
# expect: same p0 np_mv out_prev
# expect: base nc_mv mem_vec_7
# expect: moves nc_mv np_mv nc_mv_mv
# expect: allocs Vec:16384 Vec:16384 Vec:16384
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
            nc: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = prev
            np: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = cur
            nc_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(nc, target_memory=pl.Mem.Vec)
            np_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(np, target_memory=pl.Mem.Vec)
            nc_mv_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(nc_mv, target_memory=pl.Mem.Vec)
            out_cur, out_prev = pl.yield_(nc_mv_mv, np_mv)
        diff: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.sub(out_cur, out_prev)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(diff, [0, 0], output)
        return result
