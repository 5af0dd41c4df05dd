# rule §8, §3.5: a pinned two-slot declaration is laid out with all its slots (2048 B, the alloc's
# declared size), not its largest member (1024 B): `buf` sorts before mem_vec_2, so buf is at 0 and
# mem_vec_2 at 2048; slot members keep their slot offsets (a, a2 at 0, b at 1024).
# memreuse-test: backend=950 step0=on addresses=on
# expect: memref a buf 0 1024
# expect: memref b buf 1024 1024
# expect: memref a2 buf 0 1024
# expect: memref s mem_vec_2 2048 1024
# expect: allocs Vec:2048 Vec:1024
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, pinned=True)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(buf, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        b: pl.Tile[[16, 16], pl.FP32, pl.MemRef(buf, pl.const(1024, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        s: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(a, b)
        a2: pl.Tile[[16, 16], pl.FP32, pl.MemRef(buf, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.exp(s)
        res: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(a2, [0, 0], out)
        return res
