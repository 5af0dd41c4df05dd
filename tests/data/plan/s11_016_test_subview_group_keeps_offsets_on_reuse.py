# rule §11 #16 TestViewOps::test_subview_group_keeps_offsets_on_reuse (#1723): src joins dead's
# buffer; tile.transpose is not in-place safe (forbids src), so srcT and its slice/reshape views
# keep their own base v7 with their own offsets (0, 0, 0, 64, 64) and sizes (512, 64, 64, 64, 64).
# memreuse-test: backend=950 step0=on
# expect: same dead src
# expect: base src mem_vec_5
# expect: distinct src srcT
# expect: memref srcT mem_vec_7 0 512
# expect: memref s0 mem_vec_7 0 64
# expect: memref r0 mem_vec_7 0 64
# expect: memref s1 mem_vec_7 64 64
# expect: memref r1 mem_vec_7 64 64
# expect: allocs Vec:512 Vec:512
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, inp: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 512)], dead_in: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)], out_dead: pl.Out[pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 512)]], out0: pl.Out[pl.Tensor[[16, 1], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 64)]], out1: pl.Out[pl.Tensor[[16, 1], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 64)]]) -> pl.Tensor[[16, 1], pl.FP32]:
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        dead: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(dead_in, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec, transpose=False)
        _sd: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 512)] = pl.tile.store(dead, [0, 0], out_dead)
        src: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(inp, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec, transpose=False)
        srcT: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.transpose(src, 0, 1)
        s0: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_7, 0, 64), pl.Mem.Vec] = pl.tile.slice(srcT, [1, 16], [0, 0])
        r0: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_7, 0, 64), pl.Mem.Vec] = pl.tile.reshape(s0, [16, 1])
        s1: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_7, 64, 64), pl.Mem.Vec] = pl.tile.slice(srcT, [1, 16], [1, 0])
        r1: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_7, 64, 64), pl.Mem.Vec] = pl.tile.reshape(s1, [16, 1])
        _o0: pl.Tensor[[16, 1], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 64)] = pl.tile.store(r0, [0, 0], out0)
        result: pl.Tensor[[16, 1], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 64)] = pl.tile.store(r1, [0, 0], out1)
        return result
