# Seed S4: a declared (pinned) allocation is closed to every other tile, subranges included:
# the two co-live 32 KiB roots cannot move into the dead 64 KiB declared arena, so the space
# overflows 64 KiB and the legacy fallback warns.
# memreuse-test: backend=none step0=off capacity=Vec:65536
# expect: base big big_buf
# expect: distinct big r1 r2
# expect: diag MR-W001 capacity-gated reuse could not fit memory space Vec
import pypto.language as pl

@pl.program
class Subrange:
    @pl.function
    def main(self, a: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)], b: pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)], o1: pl.Out[pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)]]) -> pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)]:
        big_buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536, pinned=True)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        big: pl.Tile[[128, 128], pl.FP32, pl.MemRef(big_buf, 0, 65536), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        s1: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)] = pl.tile.store(big, [0, 0], o1)
        r1: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        r2: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        s: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.add(r1, r2)
        s2: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)] = pl.tile.store(s, [0, 0], s1)
        return s2
