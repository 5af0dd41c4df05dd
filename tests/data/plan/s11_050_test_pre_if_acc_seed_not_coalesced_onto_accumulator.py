# rule §11 #50 TestTopDownRetargeter::test_pre_if_acc_seed_not_coalesced_onto_accumulator (§7.4
# condition 3): the seed is computed before the if, so retargeting it onto the accumulator would
# clobber what the in-place arm reads; §7.4 declines and the yield fixup rejects the Acc->Acc
# move. The upstream test body is not in the reference snapshot; this program is reconstructed
# from the row.
# memreuse-test: backend=950 step0=on
# expect: error MR-E003 Internal error: MemoryReuse cannot reconcile divergent L0C accumulator buffers with tile.move
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
        seed: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a, b)
        if cond_param == 0:
            if_result: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(seed)
        else:
            upd: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(acc, a, b)
            if_result: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(upd)
        result: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(if_result, [0, 0], output)
        return result
