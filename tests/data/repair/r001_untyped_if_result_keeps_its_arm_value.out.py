# Repair MR-R001 through an if result: the then arm yields 't', defined before the if (as the
# else arm's 'u' is), for 'r0', printed without a type, so PyPTO's lifetimes give 'r0' no
# if-phi family and end 't' at the yield, though 'r0' (on 't's buffer) is read after the if;
# the packer puts 't' on the buffer of the larger 'w', defined after the if. 'r0' is no
# sharing group of its own: the repair keeps 't', the tile it sits with, on its own allocation.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R001
import pypto.language as pl

@pl.program
class UntypedIfResultArmValue:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], c: pl.Scalar[pl.INT64]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(a, a)
        u: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.mul(a, a)
        if c < 2:
            r0, r1 = pl.yield_(t, a)
        else:
            u_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(u, target_memory=pl.Mem.Vec)
            r0, r1 = pl.yield_(u_mv, a)
        w: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        w_st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(w, [0, 0], y)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(r0, a)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(s, [0, 0], y)
        return st
## repairs
r001_untyped_if_result_keeps_its_arm_value.py:25:9: warning[MR-R001]: PyPTO puts 'r0' on 'mem_vec_5', the buffer of 'w', which is unsafe: tiles 'r0' and 'w' share bytes of 'mem_vec_5' while both are live: 'w' (bytes [0, 8192)) is written here, and 'r0' (bytes [0, 8192)) is read again after it; the repaired plan keeps 't', which 'r0' sits with, on its own allocation 'mem_vec_3'
  r001_untyped_if_result_keeps_its_arm_value.py:22:13: note: 'r0' is defined here
  r001_untyped_if_result_keeps_its_arm_value.py:27:9: note: 'r0' is read here after 'w' is written
