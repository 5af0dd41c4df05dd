# pypto.program: LateRow
# Iterations 0-3 read row 0 of `pool` through a slice at row `i // 4`, iterations 4-7 row 1;
# every iteration writes `w` over row 1. From iteration 1 on every iteration leaves the
# buffers as it found them, so the value checker replays the next ones instead of running
# them; the replay of iteration 4 places the slice on row 1, so it runs, and its read of row 1
# sees `w`: the value is lost.
import pypto.language as pl

@pl.program
class LateRow:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, input_a: pl.Tensor[[2, 128], pl.FP32, pl.MemRef("mem_ddr_0", 0, 1024)], output: pl.Out[pl.Tensor[[1, 128], pl.FP32, pl.MemRef("mem_ddr_1", 0, 512)]]) -> pl.Tensor[[1, 128], pl.FP32, pl.MemRef("mem_ddr_1", 0, 512)]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        pool: pl.Tile[[2, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], [2, 128], [2, 128], target_memory=pl.Mem.Vec)
        m0: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 512), pl.Mem.Vec] = pl.tile.full([1, 128], dtype=pl.FP32, value=0.0)
        for i, (m,) in pl.range(8, init_values=(m0,)):
            row: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_0, i // 4 * 128 * 4, 512), pl.Mem.Vec] = pl.tile.slice(pool, [1, 128], [i // 4, 0])
            t: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_2, 0, 512), pl.Mem.Vec] = pl.tile.add(row, m)
            w: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_0, 512, 512), pl.Mem.Vec] = pl.tile.exp(t)
            m_next: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 512), pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
            m_rv: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 512), pl.Mem.Vec] = pl.yield_(m_next)
        result: pl.Tensor[[1, 128], pl.FP32, pl.MemRef("mem_ddr_1", 0, 512)] = pl.tile.store(m_rv, [0, 0], output)
        return result
