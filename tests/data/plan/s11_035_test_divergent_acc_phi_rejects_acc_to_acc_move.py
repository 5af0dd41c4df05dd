# rule §11 #35 TestYieldFixup::test_divergent_acc_phi_rejects_acc_to_acc_move (§7.5, §9.3): both
# arms yield co-live Acc tiles defined before the if (no phi family, no in-place accumulator for
# §7.4), so reconciling them would need an Acc->Acc tile.move: internal error. The upstream test
# body is not in the reference snapshot; this program is reconstructed from the row.
# memreuse-test: backend=950 step0=on
# expect: error MR-E003 Internal error: MemoryReuse cannot reconcile divergent L0C accumulator buffers with tile.move
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_a: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], input_b: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)], cond_param: pl.Scalar[pl.INDEX], output: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 2048)
        mem_acc_7: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_acc_8: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        tile_a_l1: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(input_a, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat, transpose=False)
        tile_b_l1: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(input_b, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat, transpose=False)
        tile_a_l0a: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.move(tile_a_l1, target_memory=pl.Mem.Left)
        tile_b_l0b: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 2048), pl.Mem.Right] = pl.tile.move(tile_b_l1, target_memory=pl.Mem.Right)
        acc_a: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(tile_a_l0a, tile_b_l0b)
        acc_b: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(tile_b_l0b, tile_a_l0a)
        if cond_param < 2:
            if_result: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(acc_a)
        else:
            if_result: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(acc_b)
        result: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(if_result, [0, 0], output)
        return result
