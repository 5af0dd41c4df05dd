# Repair MR-R001 after packing, where the init of the first carry keeps the buffer: both arms
# of the `if` yield 'c', so reads of the if result 'p' do not keep 'c' live (rule §5.4), and
# PyPTO's packer puts 'ld', the init of the second carry 'k2', on the buffer of 'c' ('c' is
# that buffer's first: as large, and earlier). Step 0 leaves both carries' values on their own
# buffers ('p' and 'ld' are read in the loop), so the yield fixup refuses carries 'k1' and 'k2'
# on one buffer (MR-E006, seed S2). Keeping the group of 'p', the init of 'k1', on its
# own allocation plans the same function and is not a repair; keeping 'ld' apart is. The loop
# before has a carry of its own: the refused loop is found where the refusal points.
# memreuse-test: backend=none step0=on
# expect: repairs MR-R001 MR-R002 MR-R002
import pypto.language as pl

@pl.program
class CarryInitPackedOntoAnotherCarrysInit:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], flag: pl.Scalar[pl.INT64]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for j, (acc,) in pl.range(2, init_values=(s,)):
            n: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, 0, 4096), pl.Mem.Vec] = pl.tile.exp(acc)
            acc_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(n)
        st0: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(acc_out, [0, 0], y)
        c: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(x, [32, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        if flag > 0:
            p: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(c)
        else:
            p: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(c)
        ld: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        ld_carry: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(ld, target_memory=pl.Mem.Vec)
        p_carry: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(p, target_memory=pl.Mem.Vec)
        for i, (k1, k2) in pl.range(4, init_values=(p_carry, ld_carry)):
            m1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(k2, ld)
            m2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.mul(k1, p)
            o1, o2 = pl.yield_(m2, m1)
        d: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.mul(o1, p)
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(d, [0, 0], st0)
        e: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(o2, o2)
        st2: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(e, [32, 0], st)
        return st2
## repairs
r001_carry_init_packed_onto_another_carrys_init.py:36:21: warning[MR-R001]: PyPTO's packing puts 'ld', the init of loop carry 'k2', on the buffer of another carry's init, so their writebacks overwrite each other (MR-E006: loop carries 'k1' and 'k2' start on overlapping buffers ('mem_vec_4'), so no order of their writebacks keeps both values); the repaired plan keeps 'ld' on its own allocation 'mem_vec_5'
r001_carry_init_packed_onto_another_carrys_init.py:37:13: warning[MR-R002]: once the repairs before this one are made, loop carry 'k2' sits on 'mem_vec_5', the buffer of its init value 'ld', which is unsafe: tiles 'ld' and 'm1_mv' (a copy memreuse inserted for 'm1') share bytes of 'mem_vec_5' while both are live: 'm1_mv' (bytes [0, 8192)) is written here, and 'ld' (bytes [0, 8192)) is read again after it; the repaired plan feeds it from 'ld_carry', a copy of 'ld' in its own allocation 'mem_vec_10'
  r001_carry_init_packed_onto_another_carrys_init.py:35:9: note: 'ld' is defined here
  r001_carry_init_packed_onto_another_carrys_init.py:37:13: note: 'ld' is read here after 'm1_mv' (a copy memreuse inserted for 'm1') is written
r001_carry_init_packed_onto_another_carrys_init.py:38:13: warning[MR-R002]: once the repairs before this one are made, loop carry 'k1' sits on 'mem_vec_4', the buffer of its init value 'p', which is unsafe: tiles 'p' and 'm2_mv' (a copy memreuse inserted for 'm2') share bytes of 'mem_vec_4' while both are live: 'm2_mv' (bytes [0, 8192)) is written here, and 'p' (bytes [0, 8192)) is read again after it; the repaired plan feeds it from 'p_carry', a copy of 'p' in its own allocation 'mem_vec_11'
  r001_carry_init_packed_onto_another_carrys_init.py:32:13: note: 'p' is defined here
  r001_carry_init_packed_onto_another_carrys_init.py:38:13: note: 'p' is read here after 'm2_mv' (a copy memreuse inserted for 'm2') is written
