# rule §5.3 (loop extension) for a pl.while_ loop: tile_a, defined before the loop and read
# inside it, stays live to the end of the loop (the next iteration reads it again), so tmp,
# defined in the body after the read, may not take its buffer; t1, dead before tmp's
# definition, may. After the loop, post may take tile_a's buffer.
# memreuse-test: backend=950 step0=off
# expect: same tile_a post
# expect: base tile_a mem_vec_2
# expect: same t1 tmp
# expect: distinct tile_a tmp
# expect: allocs Vec:16384 Vec:16384
# expect: moves
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        tile_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        c0: pl.Scalar[pl.INDEX] = 0
        for (cnt,) in pl.while_(init_values=(c0,)):
            pl.cond(cnt < 4)
            t1: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(tile_a, tile_a)
            s1: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(t1, [0, 0], output)
            tmp: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
            s2: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(tmp, [0, 0], output)
            cnt_next: pl.Scalar[pl.INDEX] = cnt + 1
            cnt_out: pl.Scalar[pl.INDEX] = pl.yield_(cnt_next)
        post: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(post, [0, 0], output)
        return result
