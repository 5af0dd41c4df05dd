# rule §7.6 / seed S3 (normalisation after the yield fixup): as in §11 #48, §7.4 retargets the
# seed onto the accumulator's mem_acc_5 and the if fixup retypes the phi; the downstream rename
# `c = if_result` (InitMemRef put it on the phi's old mem_acc_6) is stranded until the
# normalisation after the fixup moves it onto mem_acc_5, so mem_acc_6's alloc disappears.
# memreuse-test: backend=950 step0=on
# expect: same acc seed upd if_result c
# expect: base c mem_acc_5
# expect: allocs Mat:2048 Mat:8192 Acc:4096
# expect: moves
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, lhs: pl.Tensor[[16, 64], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], rhs: pl.Tensor[[64, 64], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)], cond_param: pl.Scalar[pl.INDEX], output: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_acc_6: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        a: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(lhs, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat, transpose=False)
        b: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(rhs, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat, transpose=False)
        acc: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a, b)
        if cond_param == 0:
            seed: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a, b)
            if_result: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(seed)
        else:
            upd: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(acc, a, b)
            if_result: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(upd)
        c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = if_result
        result: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c, [0, 0], output)
        return result
