# rule §11 #17 TestViewOps::test_loop_carry_retarget_keeps_slice_view_aliased (#1776): Step 0
# retargets the reload ti onto the carried buffer of t0 (v2) and acc_n onto acc0's (v3); the slice
# si follows ti and is re-anchored to (v2, 0, 992) (§4.4) instead of staying on the orphaned v4.
# memreuse-test: backend=950 step0=on
# expect: same t0 s0 ti si
# expect: base ti mem_vec_2
# expect: memref si mem_vec_2 0 992
# expect: memref s0 mem_vec_2 0 992
# expect: same acc0 acc_n
# expect: base acc_n mem_vec_3
# expect: distinct ti acc_n
# expect: allocs Vec:1024 Vec:512
# expect: moves
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, inp: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], out_acc: pl.Out[pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)]]) -> pl.Tensor[[16, 8], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        t0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(inp, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        s0: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_2, 0, 992), pl.Mem.Vec] = pl.tile.slice(t0, [16, 8], [0, 0])
        acc0: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(s0, s0)
        for _i, (t_c, acc_c) in pl.range(4, init_values=(t0, acc0)):
            ti: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(inp, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
            si: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_4, 0, 992), pl.Mem.Vec] = pl.tile.slice(ti, [16, 8], [0, 0])
            acc_n: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(acc_c, si)
            _t_y, acc_y = pl.yield_(ti, acc_n)
        result: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)] = pl.tile.store(acc_y, [0, 0], out_acc)
        return result
