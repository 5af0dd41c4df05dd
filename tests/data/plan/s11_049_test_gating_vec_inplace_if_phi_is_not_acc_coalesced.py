# rule §11 #49 TestTopDownRetargeter::test_gating_vec_inplace_if_phi_is_not_acc_coalesced (§7.4,
# §7.5): the same shape as #48 in Vec (fillpad_inplace accumulates on gate's buffer) is not
# coalesced — §7.4 is Acc-only — so the two arms stay on two Vec buffers and the else arm copies
# acc into the phi (then-arm) buffer. The upstream test body is not in the reference snapshot;
# this program is reconstructed from the row.
# memreuse-test: backend=950 step0=on
# expect: same gate acc
# expect: base gate mem_vec_2
# expect: same seed acc_mv if_result
# expect: base seed mem_vec_3
# expect: allocs Vec:16384 Vec:16384
# expect: moves acc_mv
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], cond_param: pl.Scalar[pl.INDEX], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        gate: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        if cond_param == 0:
            seed: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
            if_result: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(seed)
        else:
            acc: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.fillpad_inplace(gate, pad_value=pl.PadValue.max)
            if_result: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(acc)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(if_result, [0, 0], output)
        return result
