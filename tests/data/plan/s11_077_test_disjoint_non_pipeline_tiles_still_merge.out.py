# rule §11 #77 TestPipelineStageSeparation::test_disjoint_non_pipeline_tiles_still_merge (control for
# §6.6: without pipeline_membership tags, lifetime-disjoint loads coalesce). R mode.
# memreuse-test: backend=950 step0=off
# expect: same a b
# expect: base b mem_vec_2
# expect: allocs Vec:512
import pypto.language as pl

@pl.program
class Before:
    @pl.function(strict_ssa=True)
    def main(self, x: pl.Tensor[[512], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], out: pl.Out[pl.Tensor[[512], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)]]) -> pl.Tensor[[512], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        a: pl.Tile[[128], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(x, [0], [128], [128], target_memory=pl.Mem.Vec, transpose=False)
        _r0: pl.Tensor[[512], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)] = pl.tile.store(a, [0], out)
        b: pl.Tile[[128], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(x, [128], [128], [128], target_memory=pl.Mem.Vec, transpose=False)
        _r1: pl.Tensor[[512], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)] = pl.tile.store(b, [128], out)
        return x
