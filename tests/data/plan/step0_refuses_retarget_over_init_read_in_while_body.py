# Step 0 refusal (MR-R003, rule §4.3 made safe) in a while loop: PyPTO's
# MaterializeSemanticAliases would compute 'nxt' in 'a''s buffer, the carry's, although 'a' is
# read again in the body on the next iteration. As step0_refuses_retarget_over_init_read_in_body,
# with `pl.while_` and a scalar counter carry: the safe Step 0 leaves 'nxt' on its own buffer and
# says why; the yield fixup's copy still overwrites 'a', which the safe planner then repairs.
# memreuse-test: backend=none step0=on
# expect: diag MR-R003 Step 0 leaves 'nxt' on its own buffer
# expect: base nxt mem_vec_3
# expect: verify-fails V003
import pypto.language as pl

@pl.program
class WhileLoopInitReadInBody:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        c0: pl.Scalar[pl.INDEX] = 0
        for (cnt, acc) in pl.while_(init_values=(c0, a)):
            pl.cond(cnt < 4)
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(acc, a)
            cnt_next: pl.Scalar[pl.INDEX] = cnt + 1
            cnt_out, acc_out = pl.yield_(cnt_next, nxt)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(acc_out, [0, 0], y)
        return st
