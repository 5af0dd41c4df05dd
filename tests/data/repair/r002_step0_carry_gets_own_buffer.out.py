# Repair MR-R002 with Step 0 on: PyPTO's Step 0 computes 'nxt' in 'a''s buffer; the safe
# Step 0 refuses (MR-R003), the carry gets its own allocation, and Step 0 then computes 'nxt'
# directly in it: no tile.move is needed.
# memreuse-test: backend=none step0=on
# expect: repairs MR-R002
# Category 1: a loop's init value read after the loop starts (here: inside the body).
# InitMemRef puts the iter arg `acc` on the init `a`'s buffer (rule §3.1), so every iteration's
# value is written back into `a`'s bytes: without Step 0 the yield fixup copies `nxt` there
# (§7.5, `nxt_mv`); with Step 0 `nxt` is computed there directly (§4.2: `dead_at` only scans
# statements after `nxt`, so it cannot see the next iteration's read of `a`). Either way the
# second iteration reads `a` and gets the carry: `a` is clobbered (V003).
import pypto.language as pl

@pl.program
class LoopInitReadInBody:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        a_carry: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a_carry,)):
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(acc, a)
            acc_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(nxt)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(acc_out, [0, 0], y)
        return st
## repairs
r002_step0_carry_gets_own_buffer.py:22:13: warning[MR-R002]: PyPTO keeps loop carry 'acc' on 'mem_vec_2', the buffer of its init value 'a', which is unsafe: tiles 'a' and 'nxt_mv' (a copy memreuse inserted for 'nxt') share bytes of 'mem_vec_2' while both are live: 'nxt_mv' (bytes [0, 4096)) is written here, and 'a' (bytes [0, 4096)) is read again after it; the repaired plan feeds it from 'a_carry', a copy of 'a' in its own allocation 'mem_vec_4'
  r002_step0_carry_gets_own_buffer.py:20:9: note: 'a' is defined here
  r002_step0_carry_gets_own_buffer.py:22:13: note: 'a' is read here after 'nxt_mv' (a copy memreuse inserted for 'nxt') is written
