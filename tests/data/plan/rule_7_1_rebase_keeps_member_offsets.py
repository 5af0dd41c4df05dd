# rule §7.1 (#1723): when a sharing group joins another buffer, its representative takes the
# target MemRef and every other member keeps its offset relative to the representative and its
# own size: the row slices s0/s1 of src land at (v5, 0, 32) and (v5, 32, 32), not both at 0.
# memreuse-test: backend=950 step0=on
# expect: same dead src s0 s1
# expect: memref src mem_vec_5 0 512
# expect: memref s0 mem_vec_5 0 32
# expect: memref s1 mem_vec_5 32 32
# expect: allocs Vec:512
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, dead_in: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 512)], inp: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)], out_dead: pl.Out[pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 512)]], out0: pl.Out[pl.Tensor[[1, 8], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 32)]], out1: pl.Out[pl.Tensor[[1, 8], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 32)]]) -> pl.Tensor[[1, 8], pl.FP32]:
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        dead: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(dead_in, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec, transpose=False)
        _sd: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 512)] = pl.tile.store(dead, [0, 0], out_dead)
        src: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(inp, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec, transpose=False)
        s0: pl.Tile[[1, 8], pl.FP32, pl.MemRef(mem_vec_6, 0, 32), pl.Mem.Vec] = pl.tile.slice(src, [1, 8], [0, 0])
        s1: pl.Tile[[1, 8], pl.FP32, pl.MemRef(mem_vec_6, 32, 32), pl.Mem.Vec] = pl.tile.slice(src, [1, 8], [1, 0])
        _o0: pl.Tensor[[1, 8], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 32)] = pl.tile.store(s0, [0, 0], out0)
        result: pl.Tensor[[1, 8], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 32)] = pl.tile.store(s1, [0, 0], out1)
        return result
