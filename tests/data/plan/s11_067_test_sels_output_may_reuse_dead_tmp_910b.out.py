# rule §11 #67 TestForbidOutputAlias::test_sels_output_may_reuse_dead_tmp [910B] (§13 tile.sels forbid 0
# only, on 910B and 950 alike; seed table "tile.sels target-aware"). dst may take the dead tmp's
# buffer (t0/dead's mem_vec_4, where tmp landed); src is still live (keep_src_live) and the mask is
# forbidden.
# §12 anchor #1788: forbid_output_alias replaced the tile-type reuse gate.
# memreuse-test: backend=910b step0=on
# expect: same dst tmp
# expect: base dst mem_vec_4
# expect: distinct dst src mask
# expect: allocs Vec:1024 Vec:1024 Vec:512
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], b: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)], tmp_in: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        t0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        dead: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(t0, t0)
        src: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        mask: pl.Tile[[16, 32], pl.UINT8, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.cmps(dead, 0.0, cmp_type=4)
        tmp: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(tmp_in, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        dst: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.sels(mask, src, tmp, -1.0)
        keep_src_live: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(src, dst)
        res: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = pl.tile.store(keep_src_live, [0, 0], out)
        return res
