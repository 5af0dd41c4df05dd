# rule §11 #68 TestForbidOutputAlias::test_prelu_output_does_not_alias_any_input (§13 tile.prelu NIP;
# seed table "tile.prelu target-aware": on A2/A3 TPRELU reads src, slope and tmp while writing dst).
# 910B: every operand is forbidden, so dst opens a fourth buffer.
# §12 anchor #1788: forbid_output_alias replaced the tile-type reuse gate.
# memreuse-test: backend=910b step0=on
# expect: base dst mem_vec_7
# expect: distinct dst src slope tmp
# expect: allocs Vec:1024 Vec:1024 Vec:544 Vec:1024
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, src_in: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], slope_in: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)], tmp_in: pl.Tensor[[17, 32], pl.UINT8, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 544)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 544)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        src: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src_in, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        slope: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(slope_in, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        tmp: pl.Tile[[17, 32], pl.UINT8, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 544), pl.Mem.Vec] = pl.tile.load(tmp_in, [0, 0], [17, 32], [17, 32], target_memory=pl.Mem.Vec, transpose=False)
        dst: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.prelu(src, slope, tmp)
        res: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = pl.tile.store(dst, [0, 0], out)
        return res
