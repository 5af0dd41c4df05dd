# rule §12 #2210 (§6.1.2, §9.3): two tiles bound to the same slot of a declared allocation but live
# at the same time are rejected before packing (a: [2, 4] and b: [3, 4] overlap at the add).
# memreuse-test: backend=950 step0=on
# expect: error MR-E001 Tiles 'a' and 'b' are both bound to the same slot of the declared allocation 'ping' but are live at the same time (a: [2, 4], b: [3, 4]).
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        ping: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024, pinned=True)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(ping, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        b: pl.Tile[[16, 16], pl.FP32, pl.MemRef(ping, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        c: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(a, b)
        res: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(c, [0, 0], out)
        return res
