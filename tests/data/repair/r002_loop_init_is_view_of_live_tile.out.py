# Repair MR-R002 for a loop carry seeded from a view of a tile read after the loop.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R002
# Category 1, through a view: the init `v` is a slice of `a` (bytes [2048, 4096) of `a`'s
# buffer, rule §3.2) and `a` is stored again after the loop. The iter arg and every write-back
# land on `v`'s bytes (§3.1, §4.2, §7.5), so the second store writes the carry instead of the
# lower half of `a` (V003 on `a`).
import pypto.language as pl

@pl.program
class LoopInitIsViewOfLiveTile:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        v: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_2, 2048, 2048), pl.Mem.Vec] = pl.tile.slice(a, [8, 64], [8, 0])
        v_carry: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_4, 2048, 2048), pl.Mem.Vec] = pl.tile.move(v, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(v_carry,)):
            nxt: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.exp(acc)
            nxt_mv: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_4, 2048, 2048), pl.Mem.Vec] = pl.tile.move(nxt, target_memory=pl.Mem.Vec)
            acc_out: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_4, 2048, 2048), pl.Mem.Vec] = pl.yield_(nxt_mv)
        st0: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(acc_out, [0, 0], y)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(a, [16, 0], st0)
        return st
## repairs
r002_loop_init_is_view_of_live_tile.py:19:13: warning[MR-R002]: PyPTO keeps loop carry 'acc' on 'mem_vec_2', the buffer of its init value 'v', which is unsafe: tiles 'a' and 'nxt_mv' (a copy memreuse inserted for 'nxt') share bytes of 'mem_vec_2' while both are live: 'nxt_mv' (bytes [2048, 4096)) is written here, and 'a' (bytes [0, 4096)) is read again after it; the repaired plan feeds it from 'v_carry', a copy of 'v' in its own allocation 'mem_vec_4'
  r002_loop_init_is_view_of_live_tile.py:16:9: note: 'a' is defined here
  r002_loop_init_is_view_of_live_tile.py:22:9: note: 'a' is read here after 'nxt_mv' (a copy memreuse inserted for 'nxt') is written
