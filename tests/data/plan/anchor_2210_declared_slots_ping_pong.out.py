# rule §12 #2210 (§3.5, §6.1.2): a two-slot declaration `pl.MemRef("buf", slots=2)[k]` becomes one
# pinned 2048-byte alloc with slot MemRefs at offsets 0 and 1024. a (slot 0) and b (slot 1) are
# live together: that is the ping-pong, not a conflict. a2, bound to slot 0 after a's last use,
# shares a's slot. The unbound sum s never joins the declaration and keeps mem_vec_2.
# memreuse-test: backend=950 step0=on
# expect: memref a buf 0 1024
# expect: memref b buf 1024 1024
# expect: memref a2 buf 0 1024
# expect: base s mem_vec_2
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
