# rule §11 #45 TestTopDownRetargeter::test_acc_chain_pinned_producer_shares_iter_arg_buffer
# (§3.1, §4.2): matmul_acc lands on its accumulator input, so the whole chain is one Acc buffer
# already; Step 0 recurses through it and nothing moves.
# memreuse-test: backend=950 step0=on
# expect: same init_acc acc_next loop_out
# expect: base acc_next mem_acc_7
# expect: allocs Mat:2048 Mat:2048 Left:2048 Right:2048 Acc:4096
# expect: moves
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_a: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], input_b: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)], output: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 2048)
        mem_acc_7: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        tile_a_l1: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(input_a, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat, transpose=False)
        tile_b_l1: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(input_b, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat, transpose=False)
        tile_a_l0a: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.move(tile_a_l1, target_memory=pl.Mem.Left)
        tile_b_l0b: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 2048), pl.Mem.Right] = pl.tile.move(tile_b_l1, target_memory=pl.Mem.Right)
        init_acc: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(tile_a_l0a, tile_b_l0b)
        for _k, (acc,) in pl.range(4, init_values=(init_acc,)):
            acc_next: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(acc, tile_a_l0a, tile_b_l0b)
            loop_out: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(acc_next)
        result: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(loop_out, [0, 0], output)
        return result
