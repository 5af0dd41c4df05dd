# A pl.while_ loop whose carry is written back by a yield fixup move: sound. The condition
# reads the scalar carry on every iteration; the tile carry reaches its buffer before the yield.
# pypto.program: WhileCarryMove
import pypto.language as pl

@pl.program
class WhileCarryMove:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]]) -> pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        init: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, 0, 16384), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        c0: pl.Scalar[pl.INDEX] = 0
        for (cnt, acc) in pl.while_(init_values=(c0, init)):
            pl.cond(cnt < 4)
            tmp: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, 0, 16384), pl.Mem.Vec] = pl.tile.add(acc, acc)
            tmp_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, 0, 16384), pl.Mem.Vec] = pl.tile.move(tmp, target_memory=pl.Mem.Vec)
            cnt_next: pl.Scalar[pl.INDEX] = cnt + 1
            cnt_out, acc_out = pl.yield_(cnt_next, tmp_mv)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", 0, 16384)] = pl.tile.store(acc_out, [0, 0], output)
        return result
