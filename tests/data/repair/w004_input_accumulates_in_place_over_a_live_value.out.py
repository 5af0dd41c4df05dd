# Input hazard MR-W004: the else arm's `ca = matmul_acc(c, …)` accumulates in place into the
# buffer of `c` (the op table's "output reuses input 0", a hardware fact), and `c` is read after
# the `if`. The if result `cp` must sit where `ca` is (no Acc-to-Acc tile.move), so the then arm's
# `cs` is computed there too and overwrites `c` on that path as well: no plan keeps `c`. The
# plan keeps that hazard as a located warning; the loop carry hazard PyPTO's packing adds to the
# same function (the init `a` read after the loop) is still repaired.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R002
# expect: input hazards MR-W004
import pypto.language as pl

@pl.program
class InputAccumulatesInPlaceOverALiveValue:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], src4: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 2048)], src5: pl.Tensor[[32, 256], pl.FP16, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 16384)], cond: pl.Scalar[pl.INDEX], dst6: pl.Out[pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 32768)]], dst9: pl.Out[pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 32768)]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[32, 256], pl.FP32]]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_mat_22: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_23: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_24: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_25: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_26: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 32768)
        mem_vec_28: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        a_carry: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a_carry,)):
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(acc)
            nxt_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(nxt, target_memory=pl.Mem.Vec)
            acc_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(nxt_mv)
        d: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.sub(acc_out, a)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(d, [0, 0], y)
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
w004_input_accumulates_in_place_over_a_live_value.py:27:13: warning[MR-R002]: PyPTO keeps loop carry 'acc' on 'mem_vec_2', the buffer of its init value 'a', which is unsafe: tiles 'a' and 'nxt_mv' (a copy memreuse inserted for 'nxt') share bytes of 'mem_vec_2' while both are live: 'nxt_mv' (bytes [0, 4096)) is written here, and 'a' (bytes [0, 4096)) is read again after it; the repaired plan feeds it from 'a_carry', a copy of 'a' in its own allocation 'mem_vec_28'
  w004_input_accumulates_in_place_over_a_live_value.py:25:9: note: 'a' is defined here
  w004_input_accumulates_in_place_over_a_live_value.py:29:9: note: 'a' is read here after 'nxt_mv' (a copy memreuse inserted for 'nxt') is written
w004_input_accumulates_in_place_over_a_live_value.py:40:13: warning[MR-W004]: the input overwrites 'c' in place (tile.matmul_acc puts its result 'ca' over its argument 0) while 'c' is still read; the if result 'cp' is 'ca' in one arm and 'cs' in the other, and with no Acc-to-Acc tile.move both must be computed on one buffer, so 'cs' is written over 'c' too; no memory plan can keep 'c', so the plan keeps this hazard: fix the kernel
  w004_input_accumulates_in_place_over_a_live_value.py:43:114: note: 'c' is read here, after it was overwritten
  w004_input_accumulates_in_place_over_a_live_value.py:37:13: note: 'cs' is written over 'c' here
