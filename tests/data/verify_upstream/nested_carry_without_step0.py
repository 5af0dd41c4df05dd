# pypto.program: NestedCarryWithoutStep0
# Category 4, found while writing the generator: a nested carry planned without Step 0 (as
# upstream tests that call `memory_reuse` directly do). The inner loop's init is the outer iter
# arg, so the yield fixup skips it (rule §7.5, "nested carries ... §7.2 handles those") and §7.2
# only re-aligns iter args with inits: no copy brings `nxt` back into `mem_vec_2`, so every inner
# iteration reads the original accumulator and the carry is lost (V005; upstream #2481 reports a
# two-deep carry broken this way). Step 0 computes `nxt` in the carried buffer and the plan is
# sound, as the `step0=on` section shows.
import pypto.language as pl

@pl.program
class NestedCarryWithoutStep0:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        acc0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (outer,) in pl.range(2, init_values=(acc0,)):
            for j, (inner,) in pl.range(2, init_values=(outer,)):
                t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [j * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
                nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(inner, t)
                inner_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(nxt)
            outer_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(inner_out)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(outer_out, [0, 0], y)
        return st
