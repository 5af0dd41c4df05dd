# rule §11 #18 TestViewOps::test_loop_carry_retarget_keeps_reshape_view_aliased (#1776): as #17 with
# a whole-buffer reshape; ri follows ti onto t0's v2 and keeps ti's exact MemRef (offset 0, 1024).
# memreuse-test: backend=950 step0=on
# expect: same t0 r0 ti ri
# expect: base ti mem_vec_2
# expect: memref ri mem_vec_2 0 1024
# expect: same acc0 acc_n
# expect: base acc_n mem_vec_3
# expect: allocs Vec:1024 Vec:1024
# expect: moves
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, inp: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], out_acc: pl.Out[pl.Tensor[[256, 1], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[256, 1], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        t0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(inp, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        r0: pl.Tile[[256, 1], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.reshape(t0, [256, 1])
        acc0: pl.Tile[[256, 1], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(r0, r0)
        for _i, (t_c, acc_c) in pl.range(4, init_values=(t0, acc0)):
            ti: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(inp, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
            ri: pl.Tile[[256, 1], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.reshape(ti, [256, 1])
            acc_n: pl.Tile[[256, 1], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(acc_c, ri)
            _t_y, acc_y = pl.yield_(ti, acc_n)
        result: pl.Tensor[[256, 1], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(acc_y, [0, 0], out_acc)
        return result
