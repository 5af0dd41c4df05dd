# Repair MR-R001: a tile the packer put on another's buffer keeps its own allocation.
# PyPTO lets 'counts' join the buffer of 'hits' (hits's interval ends where it is extracted),
# but gather_compare writes both items at once: the repair keeps 'counts' on its own buffer.
# memreuse-test: backend=none step0=off
# expect: repairs MR-R001
# Category 3: a tuple-returning op with an unused item. `gather_compare` writes `hits` and
# `counts` at once, but upstream numbers each `x = pair[k]` as its own statement (rule §5.1):
# `hits` is never read, so its interval ends where it is extracted, and `counts`, extracted
# one statement later, may share its buffer (§5.6, touching). The op then writes both outputs
# into one buffer (V003 on `counts`).
import pypto.language as pl

@pl.program
class TupleItemUnused:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        tmp: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        pair: pl.Tuple[pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec], pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec]] = pl.tile.gather_compare(a, pl.const(0.0, pl.FP32), tmp, cmp_mode='gt', out_cols=16)
        hits: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pair[0]
        counts: pl.Tile[[1, 16], pl.INT32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pair[1]
        counts_f32: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.cast(counts, target_type=pl.FP32, mode='round')
        st: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(counts_f32, [0, 0], y)
        return st
## repairs
r001_packed_tile_keeps_own_buffer.py:25:9: warning[MR-R001]: PyPTO puts 'counts' on 'mem_vec_4', the buffer of 'hits', which is unsafe: tiles 'counts' and 'hits' share bytes of 'mem_vec_4' while both are live: 'hits' (bytes [0, 1024)) is written here, and 'counts' (bytes [0, 1024)) is read again after it; the repaired plan keeps 'counts' on its own allocation 'mem_vec_5'
  r001_packed_tile_keeps_own_buffer.py:26:9: note: 'counts' is defined here
  r001_packed_tile_keeps_own_buffer.py:27:9: note: 'counts' is read here after 'hits' is written
