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
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a,)):
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(acc)
            acc_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(nxt)
        d: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.sub(acc_out, a)
        for j, (acc2,) in pl.range(4, init_values=(d,)):
            nxt2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(acc2)
            acc2_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(nxt2)
        e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.sub(acc2_out, d)
        f: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(e, a)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(f, [0, 0], y)
        return st
