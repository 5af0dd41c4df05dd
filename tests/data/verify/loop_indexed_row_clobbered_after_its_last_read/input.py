# pypto.program: RowPool
# The softmax-pool idiom of real kernels: iteration i reads row i of `pool` through a slice at
# a loop-indexed offset, and `t` is written over row 0 after iteration 0 has read it. Row 0 is
# never read again (rows 1..6 are read by later iterations, row 7 before the loop): the
# lifetimes overlap, but no value is lost.
import pypto.language as pl

@pl.program
class RowPool:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[8, 128], pl.FP32, pl.MemRef("mem_ddr_0", 0, 4096)], output: pl.Out[pl.Tensor[[8, 128], pl.FP32, pl.MemRef("mem_ddr_1", 0, 4096)]]) -> pl.Tensor[[8, 128], pl.FP32, pl.MemRef("mem_ddr_1", 0, 4096)]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        pool: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)
        last_slot: pl.Scalar[pl.INDEX] = 7
        last: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_0, last_slot * 128 * 4, 512), pl.Mem.Vec] = pl.tile.slice(pool, [1, 128], [last_slot, 0])
        m0: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 512), pl.Mem.Vec] = pl.tile.exp(last)
        for i, (m,) in pl.range(7, init_values=(m0,)):
            row: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_0, i * 128 * 4, 512), pl.Mem.Vec] = pl.tile.slice(pool, [1, 128], [i, 0])
            t: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.sub(row, m)
            m_next: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 512), pl.Mem.Vec] = pl.tile.add(m, t)
            m_rv: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 512), pl.Mem.Vec] = pl.yield_(m_next)
        result: pl.Tensor[[8, 128], pl.FP32, pl.MemRef("mem_ddr_1", 0, 4096)] = pl.tile.store(m_rv, [0, 0], output)
        return result
