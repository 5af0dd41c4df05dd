# Repair MR-R002: carries 'p' and 'q' both start from 't', so PyPTO keeps them on one buffer
# (the seed's S2 refuses it, MR-E006). 'p' receives 'q' each iteration, which ties 'q' to 't'
# through 'p': 'q' leaves alone, with only the tiles bound to it (its result), fed from a
# copy of 't'; the yield fixup copies 'q' into 'p' and 'n' into 'q'.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R002
import pypto.language as pl

@pl.program
class LoopCarryPassedOn:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], c: pl.Scalar[pl.INT64]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        t_carry: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
        for i, (p, q) in pl.range(4, init_values=(t, t_carry)):
            n: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(q, p)
            q_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(q, target_memory=pl.Mem.Vec)
            n_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(n, target_memory=pl.Mem.Vec)
            r0, r1 = pl.yield_(q_mv, n_mv)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(r0, r1)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(s, [0, 0], y)
        return st
## repairs
r002_loop_carry_passed_on_leaves_alone.py:17:9: warning[MR-R002]: PyPTO keeps loop carries 'p' and 'q' on one buffer, 'mem_vec_2', because both start from 't', so their writebacks overwrite each other (the seed's S2 rejects this); the repaired plan feeds 'q' from 't_carry', a copy of 't' in its own allocation 'mem_vec_5'
