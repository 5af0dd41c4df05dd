# rule §11 #72 TestForbidOutputAlias::test_widening_cast_output_does_not_alias_input (§6.1.4 widening
# tile.cast forbids arg 0). r (FP32, 512 B) is packed before bf (BF16, 256 B) and joins t0/_dead's
# mem_vec_3; bf, forbidden by r, cannot join that buffer and keeps its own.
# §12 anchor #1788: forbid_output_alias replaced the tile-type reuse gate.
# memreuse-test: backend=950 step0=on
# expect: same t0 _dead r
# expect: base r mem_vec_3
# expect: base bf mem_vec_5
# expect: allocs Vec:512 Vec:256
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 512)], b: pl.Tensor[[8, 16], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 256)], out: pl.Out[pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 512)]]) -> pl.Tensor[[8, 16], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        t0: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec, transpose=False)
        _dead: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(t0, t0)
        bf: pl.Tile[[8, 16], pl.BF16, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec, transpose=False)
        r: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.cast(bf, target_type=pl.FP32, mode='round')
        res: pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 512)] = pl.tile.store(r, [0, 0], out)
        return res
