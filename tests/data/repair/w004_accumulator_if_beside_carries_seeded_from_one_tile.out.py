# Input hazard MR-W004 beside a repair: the else arm's `ca = matmul_acc(c, …)` accumulates in
# place into the buffer of `c`, which is read after the `if` (the then arm seeds the if result
# `cp` with `tile.matmul`, which PyPTO coalesces onto that buffer, rule §7.4): no plan keeps `c`,
# and the plan keeps that hazard as a located warning. The same function's loop starts two
# carries from one tile `a`, which the yield fixup refuses (MR-E006, seed S2) until the repair
# feeds one from a copy (MR-R002). The plan with no reuse, against which the hazard is proved
# the input's own, separates those carries first: planned as given, it has no plan and the
# function none either.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R002
# expect: input hazards MR-W004
import pypto.language as pl

@pl.program
class AccumulatorIfBesideCarriesSeededFromOneTile:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], src4: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 2048)], src5: pl.Tensor[[32, 256], pl.FP16, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 16384)], cond: pl.Scalar[pl.INDEX], dst6: pl.Out[pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 32768)]], dst9: pl.Out[pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 32768)]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[32, 256], pl.FP32]]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_mat_22: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_23: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_24: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_25: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_26: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 32768)
        mem_vec_28: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        a_carry: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        for i, (p, q) in pl.range(4, init_values=(a, a_carry)):
            np: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(p, q)
            nq: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.mul(p, q)
            np_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(np, target_memory=pl.Mem.Vec)
            nq_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(nq, target_memory=pl.Mem.Vec)
            p_out, q_out = pl.yield_(np_mv, nq_mv)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(p_out, q_out)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(s, [0, 0], y)
        m16: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_22, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(src4, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat)
        m17: pl.Tile[[32, 256], pl.FP16, pl.MemRef(mem_mat_23, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(src5, [0, 0], [32, 256], [32, 256], target_memory=pl.Mem.Mat)
        l18: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_left_24, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.move(m16, target_memory=pl.Mem.Left)
        r19: pl.Tile[[32, 256], pl.FP16, pl.MemRef(mem_right_25, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(m17, target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 256], pl.FP32, pl.MemRef(mem_acc_26, pl.const(0, pl.INT64), 32768), pl.Mem.Acc] = pl.tile.matmul(l18, r19)
        if cond < 2:
            cs: pl.Tile[[32, 256], pl.FP32, pl.MemRef(mem_acc_26, pl.const(0, pl.INT64), 32768), pl.Mem.Acc] = pl.tile.matmul(l18, r19)
            cp: pl.Tile[[32, 256], pl.FP32, pl.MemRef(mem_acc_26, pl.const(0, pl.INT64), 32768), pl.Mem.Acc] = pl.yield_(cs)
        else:
            ca: pl.Tile[[32, 256], pl.FP32, pl.MemRef(mem_acc_26, pl.const(0, pl.INT64), 32768), pl.Mem.Acc] = pl.tile.matmul_acc(c, l18, r19)
            cp: pl.Tile[[32, 256], pl.FP32, pl.MemRef(mem_acc_26, pl.const(0, pl.INT64), 32768), pl.Mem.Acc] = pl.yield_(ca)
        r24: pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 32768)] = pl.tile.store(cp, [0, 0], dst6)
        r28: pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 32768)] = pl.tile.store(c, [0, 0], dst9)
        return st, r28
## repairs
w004_accumulator_if_beside_carries_seeded_from_one_tile.py:29:9: warning[MR-R002]: PyPTO keeps loop carries 'p' and 'q' on one buffer, 'mem_vec_2', because both start from 'a', so their writebacks overwrite each other (the seed's S2 rejects this); the repaired plan feeds 'q' from 'a_carry', a copy of 'a' in its own allocation 'mem_vec_28'
w004_accumulator_if_beside_carries_seeded_from_one_tile.py:44:13: warning[MR-W004]: the input overwrites 'c' in place (tile.matmul_acc puts its result 'ca' over its argument 0) while 'c' is still read; the if result 'cp' is 'ca' in one arm and 'cs' in the other, and with no Acc-to-Acc tile.move both must be computed on one buffer, so 'cs' is written over 'c' too; no memory plan can keep 'c', so the plan keeps this hazard: fix the kernel
  w004_accumulator_if_beside_carries_seeded_from_one_tile.py:47:114: note: 'c' is read here, after it was overwritten
  w004_accumulator_if_beside_carries_seeded_from_one_tile.py:41:13: note: 'cs' is written over 'c' here
