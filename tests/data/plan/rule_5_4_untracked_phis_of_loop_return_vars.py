# rule §5.4 / §11 #57 note (upstream quirk, reproduced on purpose): the phis of an if whose then
# arm yields a loop's return vars get no branch-local sources (return vars are not tracked
# tiles), and the else arm yields pre-if tiles (not sources either), so reads of phi_a/phi_b
# after the if extend nobody. With x and y still live after the if, the temporary z therefore
# lands on inner_init_a's buffer — the phi_a buffer — although phi_a is stored after z is
# written. Upstream MemoryReuse does the same; this pins it so a change is deliberate.
# memreuse-test: backend=950 step0=on exact=on
# expect: same inner_init_a phi_a z
# expect: distinct x y inner_init_a inner_init_b
# expect: allocs Vec:16384 Vec:16384 Vec:16384 Vec:16384
# expect: moves x_mv y_mv
# expect: verify-fails V003
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, input_tensor: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], cond_param: pl.Scalar[pl.INDEX], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        x: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        y: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        if cond_param < 2:
            inner_init_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            inner_init_b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            for j, (pa, pb) in pl.parallel(4, init_values=(inner_init_a, inner_init_b)):
                na: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(pa, x)
                nb: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(pb, y)
                res_a, res_b = pl.yield_(na, nb)
            phi_a, phi_b = pl.yield_(res_a, res_b)
        else:
            phi_a, phi_b = pl.yield_(x, y)
        z: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(input_tensor, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, transpose=False)
        s_z: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(z, [0, 0], output)
        s_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(phi_a, [0, 0], output)
        s_b: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(phi_b, [0, 0], output)
        w: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(x, y)
        s_w: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(w, [0, 0], output)
        return s_w
