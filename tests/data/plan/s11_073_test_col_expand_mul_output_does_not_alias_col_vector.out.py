# rule §11 #73 TestForbidOutputAlias::test_col_expand_mul_output_does_not_alias_col_vector (§13
# col_expand_mul forbid 1, reached through a slice view). col is a 64-byte slice of col_src (one
# group); r must stay off that group's buffer and joins t0/tgt's mem_vec_3 instead. The col_src group
# joins cbig's mem_vec_5 and col keeps its own offset/size inside it (§7.1).
# §12 anchor #1788: forbid_output_alias replaced the tile-type reuse gate.
# memreuse-test: backend=950 step0=on
# expect: same t0 tgt r
# expect: base r mem_vec_3
# expect: same cbig col_src col
# expect: distinct r col_src
# expect: memref col mem_vec_5 0 64
# expect: allocs Vec:512 Vec:512
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 512)], c: pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)], out: pl.Out[pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 512)]]) -> pl.Tensor[[8, 16], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        t0: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec, transpose=False)
        tgt: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(t0, t0)
        cbig: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(c, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec, transpose=False)
        col_src: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(cbig, cbig)
        col: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_5, 0, 64), pl.Mem.Vec] = pl.tile.slice(col_src, [1, 16], [0, 0])
        r: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.col_expand_mul(tgt, col)
        res: pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 512)] = pl.tile.store(r, [0, 0], out)
        return res
