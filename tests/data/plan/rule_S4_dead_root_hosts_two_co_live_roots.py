# Seed S4 (the seed's own example): with a known capacity the whole-buffer packing needs a dead
# 64 KiB root's buffer plus a second 32 KiB buffer (96 KiB > 64 KiB). The overflow fallback
# places the second co-live 32 KiB root into the upper half of the 64 KiB arena: [32768, 65536).
# memreuse-test: backend=none step0=off capacity=Vec:65536
# expect: memref r1 mem_vec_3 0 32768
# expect: memref r2 mem_vec_3 32768 32768
# expect: allocs Vec:65536
# expect: nodiag MR-W001
import pypto.language as pl

@pl.program
class Subrange:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)], b: pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)], o1: pl.Out[pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)]]) -> pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        big: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 65536), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        s1: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)] = pl.tile.store(big, [0, 0], o1)
        r1: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        r2: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        s: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.add(r1, r2)
        s2: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 65536)] = pl.tile.store(s, [0, 0], s1)
        return s2
