# rule §1 (pl.while_) and §7.2: a while loop's carries are re-aligned like a for loop's. Step 0
# puts the producer nxt on the carry's buffer; the init then joins the dead tile's buffer
# (mem_vec_2) and the iter arg and return var follow it, so no move is needed. The scalar carry
# (the loop counter read by pl.cond) is not a tile and is left alone.
# memreuse-test: backend=950 step0=on
# expect: same dead init nxt
# expect: base init mem_vec_2
# expect: allocs Vec:16384
# expect: moves
# expect: deterministic
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        dead: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        s0: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(dead, [0, 0], output)
        init: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        c0: pl.Scalar[pl.INDEX] = 0
        for (cnt, acc) in pl.while_(init_values=(c0, init)):
            pl.cond(cnt < 4)
            nxt: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(acc, acc)
            cnt_next: pl.Scalar[pl.INDEX] = cnt + 1
            cnt_out, acc_out = pl.yield_(cnt_next, nxt)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(acc_out, [0, 0], output)
        return result
