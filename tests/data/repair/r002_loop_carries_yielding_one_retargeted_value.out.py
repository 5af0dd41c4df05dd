# Repairs MR-R002 then MR-R004: two loop carries start from one tile 'a' and yield one value,
# 'np', which the input already computes in 'a''s buffer (an upstream Step 0 retarget). The
# first carry gets its own allocation; 'np' then still writes over the second carry's value
# while 'q' reads it, so it moves to a fresh allocation and both carries receive it by tile.move.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R002 MR-R004
import pypto.language as pl

@pl.program
class CarriesSeededFromOneTile:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], c: pl.Scalar[pl.INT64]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        a_carry: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        for i, (p, q) in pl.range(4, init_values=(a_carry, a)):
            np: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(p, q)
            nq: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.mul(p, q)
            np_carry: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(np, target_memory=pl.Mem.Vec)
            np_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(np, target_memory=pl.Mem.Vec)
            p_out, q_out = pl.yield_(np_carry, np_mv)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(p_out, q_out)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(s, [0, 0], y)
        return st
## repairs
r002_loop_carries_yielding_one_retargeted_value.py:19:13: warning[MR-R002]: PyPTO keeps loop carry 'p' on 'mem_vec_2', the buffer of its init value 'a', which is unsafe: tiles 'p' and 'np' share bytes of 'mem_vec_2' while both are live: 'np' (bytes [0, 4096)) is written here, and 'p' (bytes [0, 4096)) is read again after it; the repaired plan feeds it from 'a_carry', a copy of 'a' in its own allocation 'mem_vec_6'
  r002_loop_carries_yielding_one_retargeted_value.py:18:17: note: 'p' is defined here
  r002_loop_carries_yielding_one_retargeted_value.py:20:13: note: 'p' is read here after 'np' is written
r002_loop_carries_yielding_one_retargeted_value.py:19:13: warning[MR-R004]: the input puts 'np' on 'mem_vec_2', the buffer of 'q' (an upstream Step 0 retarget), which is unsafe: tiles 'q' and 'np' share bytes of 'mem_vec_2' while both are live: 'np' (bytes [0, 4096)) is written here, and 'q' (bytes [0, 4096)) is read again after it; the repaired plan gives 'np' its own allocation 'mem_vec_7'
  r002_loop_carries_yielding_one_retargeted_value.py:18:20: note: 'q' is defined here
  r002_loop_carries_yielding_one_retargeted_value.py:20:13: note: 'q' is read here after 'np' is written
