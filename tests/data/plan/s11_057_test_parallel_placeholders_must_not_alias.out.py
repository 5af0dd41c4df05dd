# rule §11 #57 TestParallelPlaceholdersInIfThen::test_parallel_placeholders_must_not_alias
# (§5.2, §5.4): the then arm yields the parallel loop's return vars, which are not tracked
# tiles, so the phis get no branch-local sources and their reads after the if are not tracked
# (upstream quirk, reproduced); the two placeholders are co-live inside the then arm anyway
# (both read at its yield), so they stay apart: 4 Vec buffers (x, y, and one per placeholder).
# The else arm's pre-if tiles are copied into the phi buffers. The upstream test body is not in
# the reference snapshot; this program is reconstructed from the row.
# memreuse-test: backend=950 step0=on
# expect: distinct x y inner_init_a inner_init_b
# expect: same inner_init_a na res_a x_mv phi_a
# expect: same inner_init_b nb res_b y_mv phi_b
# expect: allocs Vec:16384 Vec:16384 Vec:16384 Vec:16384
# expect: moves x_mv y_mv
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], cond_param: pl.Scalar[pl.INDEX], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        x: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        y: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        if cond_param < 2:
            inner_init_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            inner_init_b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            for j, (pa, pb) in pl.parallel(4, init_values=(inner_init_a, inner_init_b)):
                na: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(pa, x)
                nb: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(pb, y)
                res_a, res_b = pl.yield_(na, nb)
            phi_a, phi_b = pl.yield_(res_a, res_b)
        else:
            x_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(x, target_memory=pl.Mem.Vec)
            y_mv: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(y, target_memory=pl.Mem.Vec)
            phi_a, phi_b = pl.yield_(x_mv, y_mv)
        s_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(phi_a, [0, 0], output)
        s_b: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(phi_b, [0, 0], output)
        return s_b
