# pypto.program: MatmulKLoop
import pypto.language as pl

@pl.program
class MatmulKLoop:
    @pl.function(type=pl.FunctionType.AIC)
    def matmul_kloop(self, a: pl.Tensor[[1024, 512], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1048576)], b: pl.Tensor[[512, 128], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 131072)], c: pl.Out[pl.Tensor[[1024, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 524288)]]) -> pl.Tensor[[1024, 128], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_7: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 32768)
        mem_mat_8: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_9: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_10: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_11: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 64
        a_mat_0: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(a, [row0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        b_mat_0: pl.Tile[[64, 128], pl.FP16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
        a_left_0: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(a_mat_0, target_memory=pl.Mem.Left)
        b_right_0: pl.Tile[[64, 128], pl.FP16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(b_mat_0, target_memory=pl.Mem.Right)
        acc_0: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 32768), pl.Mem.Acc] = pl.tile.matmul(a_left_0, b_right_0)
        for k, (acc_iter,) in pl.range(1, 8, init_values=(acc_0,)):
            k0: pl.Scalar[pl.INDEX] = k * 64
            a_mat: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_8, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(a, [row0, k0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
            b_mat: pl.Tile[[64, 128], pl.FP16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(b, [k0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
            a_left: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_left_10, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
            b_right: pl.Tile[[64, 128], pl.FP16, pl.MemRef(mem_right_11, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
            acc_next: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 32768), pl.Mem.Acc] = pl.tile.matmul_acc(acc_iter, a_left, b_right)
            acc_out: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 32768), pl.Mem.Acc] = pl.yield_(acc_next)
        c_stored: pl.Tensor[[1024, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 524288)] = pl.tile.store(acc_out, [row0, 0], c)
        return c_stored
