# Repair MR-R004 after packing: the input already has 'nxt' on the carry's buffer (an upstream
# Step 0 retarget), but col_expand_min must not write over its argument 1, 'row', a view of
# the carry: 'nxt' gets a fresh allocation and the yield fixup copies it into the carry. The
# packer has moved the carry's whole group onto the buffer of 'big', dead by then, so the
# retarget is recognised on the input's buffers.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R004
import pypto.language as pl

@pl.program
class UpstreamRetargetOnPackedBuffer:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], c: pl.Scalar[pl.INT64]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        big: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        big_st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(big, [0, 0], y)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a,)):
            row: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_2, 0, 256), pl.Mem.Vec] = pl.tile.slice(acc, [1, 64], [0, 0])
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.col_expand_min(acc, row)
            acc_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(nxt)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(acc_out, [0, 0], y)
        return st
