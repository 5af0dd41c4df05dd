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
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i, (p, q) in pl.range(4, init_values=(t, t)):
            n: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(q, p)
            r0, r1 = pl.yield_(q, n)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(r0, r1)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(s, [0, 0], y)
        return st
