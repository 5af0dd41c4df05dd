# rule §11 #70 TestForbidOutputAlias::test_row_sum_output_does_not_alias_input_or_tmp (§13 row
# reductions NIP). sq reuses t0's mem_vec_3; s avoids both sq's and tmp's buffers.
# §12 anchor #1788: forbid_output_alias replaced the tile-type reuse gate.
# memreuse-test: backend=950 step0=on
# expect: same t0 sq
# expect: base s mem_vec_6
# expect: distinct s sq tmp
# expect: allocs Vec:1024 Vec:1024 Vec:64
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], tmp_in: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)], out: pl.Out[pl.Tensor[[16, 1], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 64)]]) -> pl.Tensor[[16, 1], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        t0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        sq: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.mul(t0, t0)
        tmp: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(tmp_in, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        s: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.row_sum(sq, tmp)
        res: pl.Tensor[[16, 1], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 64)] = pl.tile.store(s, [0, 0], out)
        return res
