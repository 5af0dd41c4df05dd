# Repair MR-R002: the init value is read after the loop; the carry leaves its buffer.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R002
# Category 1: a loop's init value read after the loop. The return var `acc_out` and the init `a`
# are one buffer (rule §3.1), so at loop exit `a`'s bytes hold the last iteration's value, not
# `a`: `d = sub(acc_out, a)` reads the carry twice. The write-back that clobbers `a` is the yield
# fixup's `nxt_mv` (§7.5) without Step 0, `nxt` itself with it (§4.2) (V003).
import pypto.language as pl

@pl.program
class LoopInitReadAfterLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        a_carry: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a_carry,)):
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(acc)
            nxt_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(nxt, target_memory=pl.Mem.Vec)
            acc_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(nxt_mv)
        d: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.sub(acc_out, a)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(d, [0, 0], y)
        return st
## repairs
r002_loop_init_read_after_loop.py:19:13: warning[MR-R002]: PyPTO keeps loop carry 'acc' on 'mem_vec_2', the buffer of its init value 'a', which is unsafe: tiles 'a' and 'nxt_mv' (a copy memreuse inserted for 'nxt') share bytes of 'mem_vec_2' while both are live: 'nxt_mv' (bytes [0, 4096)) is written here, and 'a' (bytes [0, 4096)) is read again after it; the repaired plan feeds it from 'a_carry', a copy of 'a' in its own allocation 'mem_vec_6'
  r002_loop_init_read_after_loop.py:17:9: note: 'a' is defined here
  r002_loop_init_read_after_loop.py:21:9: note: 'a' is read here after 'nxt_mv' (a copy memreuse inserted for 'nxt') is written
