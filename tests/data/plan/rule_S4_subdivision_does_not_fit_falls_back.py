# Seed S4: three co-live 32 KiB roots after a dead 64 KiB root need 128 KiB whole and still
# 96 KiB when the 64 KiB arena is subdivided (it holds two of them, never grows): subdivision
# does not fit 64 KiB, so the whole-buffer packing stands and the legacy fallback warns (an
# Opaque function: AllocateMemoryAddr, whose overflow error would follow, does not run).
# memreuse-test: backend=none step0=off capacity=Vec:65536
# expect: base r1 mem_vec_3
# expect: distinct r1 r2 r3
# expect: diag MR-W001 capacity-gated reuse could not fit memory space Vec at any double-buffering depth; fell back to the legacy packing (which also overflows — reduce tile size or stage count).
import pypto.language as pl

@pl.program
class Subrange:
    @pl.function
    def main(self, a: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)], b: pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)], o1: pl.Out[pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)]]) -> pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        big: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 65536), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        s1: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)] = pl.tile.store(big, [0, 0], o1)
        r1: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        r2: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        r3: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        t: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.add(r1, r2)
        s: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.add(t, r3)
        s2: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)] = pl.tile.store(s, [0, 0], s1)
        return s2
