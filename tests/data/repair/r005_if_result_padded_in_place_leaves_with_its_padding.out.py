# Repair MR-R005: the then arm yields the pre-if tile `a`, so the if result `p` sits on `a`'s
# buffer, and `pad = fillpad_inplace(p)` writes over those bytes in place (its output reuses
# input 0): in iteration 0 the then arm runs and `pad` overwrites `a`, which the else arm reads
# in iteration 1. The if result gets its own buffer, fed by a copy of `a`, and the in-place
# result goes with it: `pad` is `p`'s storage (rule §3.1), so it is never moved alone to a
# fresh buffer, which would leave it off its source's base (V006) and no repair undoes that.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R005
import pypto.language as pl

@pl.program
class IfResultPaddedInPlace:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i in pl.range(2):
            if i < 1:
                a_phi: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
                p: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(a_phi)
            else:
                r: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(a, a)
                e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(r)
                p: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(e)
            pad: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.fillpad_inplace(p, pad_value=pl.PadValue.zero)
            st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(pad, [i * 16, 0], y)
        return y
## repairs
r005_if_result_padded_in_place_leaves_with_its_padding.py:23:124: warning[MR-R005]: PyPTO keeps if result 'p' on 'mem_vec_2', the buffer of the value its then arm yields 'a', which is unsafe: 'a' is read here, but its bytes [0, 4096) of 'mem_vec_2' were overwritten by 'pad'; the repaired plan feeds it from 'a_phi', a copy of 'a' in its own allocation 'mem_vec_5'
  r005_if_result_padded_in_place_leaves_with_its_padding.py:18:9: note: 'a' is defined here
  r005_if_result_padded_in_place_leaves_with_its_padding.py:26:13: note: 'pad' is written over 'a' here
