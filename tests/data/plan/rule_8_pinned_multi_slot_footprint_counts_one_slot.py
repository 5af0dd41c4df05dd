# rule §8 quirk: the reuse footprint (§6.7) counts one slot of a multi-slot declaration (1024 +
# 1024 = 2048 fits a 2560 B Vec, so MemoryReuse neither sheds nor warns) while AllocateMemoryAddr
# reserves both slots (2048 + 1024 = 3072) and reports the overflow.
# memreuse-test: backend=950 step0=on capacity=Vec:2560 addresses=on
# expect: error MR-E008 Vec buffer usage (3072 bytes) exceeds platform limit (2560 bytes)
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
