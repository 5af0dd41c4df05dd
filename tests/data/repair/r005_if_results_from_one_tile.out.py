# Repair MR-R005: the then arm yields one tile 't' for both if results, so PyPTO puts both on
# its buffer, and the else arm's two values are copied into that one buffer: the second result
# gets its own allocation, fed in the then arm by a copy of 't'.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R001 MR-R005
import pypto.language as pl

@pl.program
class IfResultsFromOneTile:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], c: pl.Scalar[pl.INT64]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        if c < 2:
            t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(a, a)
            t_phi: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
            r0, r1 = pl.yield_(t_phi, t)
        else:
            u: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.mul(a, a)
            w: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.sub(a, a)
            u_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(u, target_memory=pl.Mem.Vec)
            w_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(w, target_memory=pl.Mem.Vec)
            r0, r1 = pl.yield_(u_mv, w_mv)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(r0, r1)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(s, [0, 0], y)
        return st
## repairs
r005_if_results_from_one_tile.py:23:13: warning[MR-R001]: PyPTO puts 'u' on 'mem_vec_3', the buffer of 'w_mv' (a copy memreuse inserted for 'w'), which is unsafe: tiles 'u' and 'w_mv' share bytes of 'mem_vec_3' while both are live: 'w_mv' (bytes [0, 4096)) is written here, and 'u' (bytes [0, 4096)) is read again after it; the repaired plan keeps 'u' on its own allocation 'mem_vec_4'
  r005_if_results_from_one_tile.py:22:13: note: 'u' is defined here
  r005_if_results_from_one_tile.py:24:13: note: 'u' is read here after 'w_mv' (a copy memreuse inserted for 'w') is written
r005_if_results_from_one_tile.py:23:13: warning[MR-R005]: PyPTO keeps if result 'r0' on 'mem_vec_3', the buffer of the value its then arm yields 't', which is unsafe: tiles 'u_mv' (a copy memreuse inserted for 'u') and 'w_mv' (a copy memreuse inserted for 'w') share bytes of 'mem_vec_3' while both are live: 'w_mv' (bytes [0, 4096)) is written here, and 'u_mv' (bytes [0, 4096)) is read again after it; the repaired plan feeds it from 't_phi', a copy of 't' in its own allocation 'mem_vec_7'
  r005_if_results_from_one_tile.py:22:13: note: 'u_mv' (a copy memreuse inserted for 'u') is defined here
  r005_if_results_from_one_tile.py:24:13: note: 'u_mv' (a copy memreuse inserted for 'u') is read here after 'w_mv' (a copy memreuse inserted for 'w') is written
