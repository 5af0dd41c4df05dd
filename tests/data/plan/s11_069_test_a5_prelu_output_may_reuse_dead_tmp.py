# rule §11 #69 TestForbidOutputAlias::test_a5_prelu_output_may_reuse_dead_tmp (§6.1.4: on an A5 target
# tile.prelu forbids only args 0 and 1). dst takes the dead tmp's mem_vec_6; src/slope stay live;
# live_inputs and result reuse src's mem_vec_4 once src dies.
# §12 anchor #1788: forbid_output_alias replaced the tile-type reuse gate.
# memreuse-test: backend=950 step0=on
# expect: same dst tmp
# expect: base dst mem_vec_6
# expect: distinct dst src slope
# expect: same src live_inputs result
# expect: allocs Vec:1024 Vec:1024 Vec:1024
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, src_in: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], slope_in: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)], tmp_in: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        src: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src_in, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        slope: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(slope_in, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        tmp: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(tmp_in, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        dst: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.prelu(src, slope, tmp)
        live_inputs: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(src, slope)
        result: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(dst, live_inputs)
        res: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = pl.tile.store(result, [0, 0], out)
        return res
