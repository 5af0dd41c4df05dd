# Repair MR-R006 with a while loop inside a for loop: as r006_nested_carry_written_back, the
# inner (while) loop's carry 'p' starts from the outer loop's iter arg 'acc', so
# PyPTO's yield fixup writes nothing back for it (rule §7.5 skips nested carries), though the
# inner loop yields 'q', which sits on another buffer: the next iteration and the result 'r0'
# would read 'acc's stale bytes. The repaired plan moves 'q' into 'p's buffer before the
# yield, ordered before the writeback that overwrites 'q' (seed S2).
# memreuse-test: backend=none step0=off
# expect: repairs MR-R006
import pypto.language as pl

@pl.program
class NestedWhileCarryWrittenBack:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], c: pl.Scalar[pl.INT64]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(2, init_values=(a,)):
            b: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            k0: pl.Scalar[pl.INDEX] = 0
            for (k, p, q) in pl.while_(init_values=(k0, acc, b)):
                pl.cond(k < 2)
                n: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(q, q)
                k_next: pl.Scalar[pl.INDEX] = k + 1
                k_out, r0, r1 = pl.yield_(k_next, q, n)
            s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(r0, r1)
            out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(s)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(out, [0, 0], y)
        return st
