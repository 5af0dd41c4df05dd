# rule §11 #66 TestForbidOutputAlias::test_sel_output_does_not_alias_mask_or_tmp (#1788; §13 tile.sel
# forbid 0, 3). ⚠ The upstream comment says the mask reuses t1's buffer; the real packing places the
# 1024-byte tiles first: dst joins t0/t1's mem_vec_4, so the 512-byte mask (forbidden by dst) and the
# 32-byte tmp (likewise) each open their own buffer.
# memreuse-test: backend=950 step0=on
# expect: same t0 t1 dst
# expect: base dst mem_vec_4
# expect: base t2 mem_vec_6
# expect: base mask mem_vec_7
# expect: base tmp mem_vec_8
# expect: distinct dst mask tmp t2
# expect: allocs Vec:1024 Vec:1024 Vec:512 Vec:32
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], b: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)], tmp_in: pl.Tensor[[1, 32], pl.UINT8, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 32)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32)
        t0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        t1: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(t0, t0)
        t2: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        mask: pl.Tile[[16, 32], pl.UINT8, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.cmp(t1, t2, cmp_type=0)
        tmp: pl.Tile[[1, 32], pl.UINT8, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 32), pl.Mem.Vec] = pl.tile.load(tmp_in, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec, transpose=False)
        dst: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.sel(mask, t2, t2, tmp)
        res: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = pl.tile.store(dst, [0, 0], out)
        return res
