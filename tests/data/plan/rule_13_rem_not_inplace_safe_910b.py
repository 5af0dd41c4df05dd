# rule §S5 / §13: tile.rem is not in-place safe, so its output may alias none of its operands
# (dividend, divisor, scratch tmp). All three die at the rem, yet r opens its own buffer. The A2/A3
# extra rule (tmp must not share bytes with a live source) holds by lifetime: operands of one call
# are co-live at it, so the packer never merges them.
# memreuse-test: backend=910b step0=on
# expect: base r mem_vec_7
# expect: distinct r x y tmp
# expect: allocs Vec:1024 Vec:1024 Vec:1024 Vec:1024
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], b: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)], c: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        y: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        tmp: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(c, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        r: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.rem(x, y, tmp)
        res: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = pl.tile.store(r, [0, 0], out)
        return res
