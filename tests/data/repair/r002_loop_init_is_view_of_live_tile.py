# Repair MR-R002 for a loop carry seeded from a view of a tile read after the loop.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R002
# Category 1, through a view: the init `v` is a slice of `a` (bytes [2048, 4096) of `a`'s
# buffer, rule §3.2) and `a` is stored again after the loop. The iter arg and every write-back
# land on `v`'s bytes (§3.1, §4.2, §7.5), so the second store writes the carry instead of the
# lower half of `a` (V003 on `a`).
import pypto.language as pl

@pl.program
class LoopInitIsViewOfLiveTile:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        v: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_2, 2048, 2048), pl.Mem.Vec] = pl.tile.slice(a, [8, 64], [8, 0])
        for i, (acc,) in pl.range(4, init_values=(v,)):
            nxt: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.exp(acc)
            acc_out: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_2, 2048, 2048), pl.Mem.Vec] = pl.yield_(nxt)
        st0: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(acc_out, [0, 0], y)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(a, [16, 0], st0)
        return st
