# rule §11 #15 TestViewOps::test_reinterpret_view_chain_shares_exact_byte_memref: a
# reinterpret_view keeps offset 0 and the byte size, so InitMemRef gives it its source's very
# MemRef (§3.2 pure alias); source, as_int16 and round_trip stay on one base, offset 0, size 512.
# (Program reconstructed from the §11 row: the upstream test body is not in the reference data.)
# memreuse-test: backend=950 step0=on
# expect: same source as_int16 round_trip
# expect: memref source mem_vec_2 0 512
# expect: memref as_int16 mem_vec_2 0 512
# expect: memref round_trip mem_vec_2 0 512
# expect: allocs Vec:512
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, inp: pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 512)], out: pl.Out[pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)]]) -> pl.Tensor[[8, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        source: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(inp, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec, transpose=False)
        as_int16: pl.Tile[[8, 32], pl.INT16, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.reinterpret_view(source, dtype=pl.INT16)
        round_trip: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.reinterpret_view(as_int16, dtype=pl.FP32)
        result: pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)] = pl.tile.store(round_trip, [0, 0], out)
        return result
