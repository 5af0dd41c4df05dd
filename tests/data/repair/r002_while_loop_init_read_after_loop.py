# Repair MR-R002 in a while loop: the init value is read after the loop; the carry leaves its
# buffer. As r002_loop_init_read_after_loop, with `pl.while_`: the return var `acc_out` and the
# init `a` are one buffer (rule §3.1), so at loop exit `a`'s bytes hold the last iteration's
# value; `d = sub(acc_out, a)` would read the carry twice (V003). The scalar counter carry is
# not a tile and is left alone.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R002
import pypto.language as pl

@pl.program
class WhileLoopInitReadAfterLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        c0: pl.Scalar[pl.INDEX] = 0
        for (cnt, acc) in pl.while_(init_values=(c0, a)):
            pl.cond(cnt < 4)
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(acc)
            cnt_next: pl.Scalar[pl.INDEX] = cnt + 1
            cnt_out, acc_out = pl.yield_(cnt_next, nxt)
        d: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.sub(acc_out, a)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(d, [0, 0], y)
        return st
