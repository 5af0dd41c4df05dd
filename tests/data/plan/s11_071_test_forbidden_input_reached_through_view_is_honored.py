# rule §11 #71 TestForbidOutputAlias::test_forbidden_input_reached_through_view_is_honored (§6.2 gate 3:
# a forbidden operand resolves to its physical base). recip (NIP) reads v, a reshape view of t0
# (same MemRef), so r must stay off t0's mem_vec_2 even though t0's group is dead at r's def.
# §12 anchor #1788: forbid_output_alias replaced the tile-type reuse gate.
# memreuse-test: backend=950 step0=on
# expect: same t0 v
# expect: same r r2
# expect: base r mem_vec_3
# expect: distinct r t0
# expect: allocs Vec:256 Vec:256
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, x: pl.Tensor[[8, 8], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 256)], out: pl.Out[pl.Tensor[[8, 8], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 256)]]) -> pl.Tensor[[8, 8], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        t0: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec, transpose=False)
        v: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.reshape(t0, [64, 1])
        r: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.recip(v)
        r2: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.reshape(r, [8, 8])
        res: pl.Tensor[[8, 8], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 256)] = pl.tile.store(r2, [0, 0], out)
        return res
