# rule §13 tile.sels forbids only argument 0 (the mask), on 910B as on 950 (seed table: A2/A3 backend
# validation of tmp against mask/src is not a MemoryReuse rule). src and tmp both die at the sels:
# dst takes src's buffer (first in buffer order); the mask buffer stays apart.
# memreuse-test: backend=910b step0=on
# expect: same src dst
# expect: base dst mem_vec_3
# expect: distinct dst mask tmp
# expect: allocs Vec:1024 Vec:512 Vec:1024
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], b: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        src: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        mask: pl.Tile[[16, 32], pl.UINT8, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.cmps(src, 0.0, cmp_type=4)
        tmp: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        dst: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.sels(mask, src, tmp, -1.0)
        res: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)] = pl.tile.store(dst, [0, 0], out)
        return res
