# Input hazard MR-W004, one warning per in-place op: the loop carry `acc` starts from `c` and,
# with no Acc-to-Acc tile.move, stays on `c`'s buffer; in the loop an `if` yields either
# `cf = matmul(…)` or `ca = matmul_acc(acc, …)`, which accumulates in place into that buffer,
# so `cf` must be computed there too; `c` is read after the loop. Two pairs of tiles, (`c`,
# `ca`) and (`c`, `cf`), lose `c`, both through the one in-place op: one warning at `ca`, with
# the read and `cf`'s write as notes (the shape of conformance program g1140).
# memreuse-test: backend=950 step0=off
# expect: input hazards MR-W004
import pypto.language as pl

@pl.program
class OneWarningPerInPlaceOp:
    @pl.function
    def main(self, src0: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)], src1: pl.Tensor[[128, 256], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 131072)], dst2: pl.Out[pl.Tensor[[128, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 131072)]], dst7: pl.Out[pl.Tensor[[128, 256], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 131072)]]) -> pl.Tensor[[128, 256], pl.FP32]:
        mem_mat_8: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 65536)
        mem_mat_9: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 131072)
        mem_left_10: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 32768)
        mem_right_11: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 65536)
        mem_acc_12: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 131072)
        mem_left_13: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 32768)
        mem_right_14: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 65536)
        m1: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_mat_8, pl.const(0, pl.INT64), 65536), pl.Mem.Mat] = pl.tile.load(src0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
        m2: pl.Tile[[128, 256], pl.FP32, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 131072), pl.Mem.Mat] = pl.tile.load(src1, [0, 0], [128, 256], [128, 256], target_memory=pl.Mem.Mat)
        l3: pl.Tile[[128, 64], pl.FP32, pl.MemRef(mem_left_10, pl.const(0, pl.INT64), 32768), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(m1, 0, 0, [128, 64], target_memory=pl.Mem.Left)
        r4: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_right_11, pl.const(0, pl.INT64), 65536), pl.Mem.Right] = pl.tile.extract(m2, 0, 0, [64, 256], target_memory=pl.Mem.Right)
        c: pl.Tile[[128, 256], pl.FP32, pl.MemRef(mem_acc_12, pl.const(0, pl.INT64), 131072), pl.Mem.Acc] = pl.tile.matmul(l3, r4)
        for k, (acc,) in pl.range(1, 2, init_values=(c,)):
            l7: pl.Tile[[128, 64], pl.FP32, pl.MemRef(mem_left_13, pl.const(0, pl.INT64), 32768), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(m1, 0, k * 64, [128, 64], target_memory=pl.Mem.Left)
            r8: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_right_14, pl.const(0, pl.INT64), 65536), pl.Mem.Right] = pl.tile.extract(m2, k * 64, 0, [64, 256], target_memory=pl.Mem.Right)
            if k == 0:
                cf: pl.Tile[[128, 256], pl.FP32, pl.MemRef(mem_acc_12, pl.const(0, pl.INT64), 131072), pl.Mem.Acc] = pl.tile.matmul(l7, r8)
                cp: pl.Tile[[128, 256], pl.FP32, pl.MemRef(mem_acc_12, pl.const(0, pl.INT64), 131072), pl.Mem.Acc] = pl.yield_(cf)
            else:
                ca: pl.Tile[[128, 256], pl.FP32, pl.MemRef(mem_acc_12, pl.const(0, pl.INT64), 131072), pl.Mem.Acc] = pl.tile.matmul_acc(acc, l7, r8)
                cp: pl.Tile[[128, 256], pl.FP32, pl.MemRef(mem_acc_12, pl.const(0, pl.INT64), 131072), pl.Mem.Acc] = pl.yield_(ca)
            cout: pl.Tile[[128, 256], pl.FP32, pl.MemRef(mem_acc_12, pl.const(0, pl.INT64), 131072), pl.Mem.Acc] = pl.yield_(cp)
        res11: pl.Tensor[[128, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 131072)] = pl.tile.store(cout, [0, 0], dst2)
        res21: pl.Tensor[[128, 256], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 131072)] = pl.tile.store(c, [0, 0], dst7)
        return res21
