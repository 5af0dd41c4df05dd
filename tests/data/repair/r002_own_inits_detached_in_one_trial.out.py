# Repair MR-R002, twice in one trial (memreuse-repair's crate doc, "Detaching own inits"): the
# loops over `acc` and `acc2` start from tiles read after them (`a`, `d`), so each carry, on its
# init's buffer (rule §3.1), writes over that init. Both pairs' victims are the inits of the
# carries on their buffers: one trial detaches both, and each warning names the buffer PyPTO's
# plan put the carry on ('mem_vec_2', 'mem_vec_3'). One pair per round would find the second
# carry where the first repair left it, on 'mem_vec_9', an allocation of memreuse's.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R002 MR-R002
import pypto.language as pl

@pl.program
class OwnInitsDetachedInOneTrial:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        a_carry: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a_carry,)):
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(acc)
            nxt_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(nxt, target_memory=pl.Mem.Vec)
            acc_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(nxt_mv)
        d: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.sub(acc_out, a)
        d_carry: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(d, target_memory=pl.Mem.Vec)
        for j, (acc2,) in pl.range(4, init_values=(d_carry,)):
            nxt2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(acc2)
            nxt2_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(nxt2, target_memory=pl.Mem.Vec)
            acc2_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(nxt2_mv)
        e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.sub(acc2_out, d)
        f: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(e, a)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(f, [0, 0], y)
        return st
## repairs
r002_own_inits_detached_in_one_trial.py:23:13: warning[MR-R002]: PyPTO keeps loop carry 'acc' on 'mem_vec_2', the buffer of its init value 'a', which is unsafe: tiles 'a' and 'nxt_mv' (a copy memreuse inserted for 'nxt') share bytes of 'mem_vec_2' while both are live: 'nxt_mv' (bytes [0, 4096)) is written here, and 'a' (bytes [0, 4096)) is read again after it; the repaired plan feeds it from 'a_carry', a copy of 'a' in its own allocation 'mem_vec_9'
  r002_own_inits_detached_in_one_trial.py:21:9: note: 'a' is defined here
  r002_own_inits_detached_in_one_trial.py:25:9: note: 'a' is read here after 'nxt_mv' (a copy memreuse inserted for 'nxt') is written
r002_own_inits_detached_in_one_trial.py:27:13: warning[MR-R002]: PyPTO keeps loop carry 'acc2' on 'mem_vec_3', the buffer of its init value 'd', which is unsafe: tiles 'd' and 'nxt2_mv' (a copy memreuse inserted for 'nxt2') share bytes of 'mem_vec_3' while both are live: 'nxt2_mv' (bytes [0, 4096)) is written here, and 'd' (bytes [0, 4096)) is read again after it; the repaired plan feeds it from 'd_carry', a copy of 'd' in its own allocation 'mem_vec_10'
  r002_own_inits_detached_in_one_trial.py:25:9: note: 'd' is defined here
  r002_own_inits_detached_in_one_trial.py:29:9: note: 'd' is read here after 'nxt2_mv' (a copy memreuse inserted for 'nxt2') is written
