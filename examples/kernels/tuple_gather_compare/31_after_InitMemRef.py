# pypto.program: ThresholdHits
import pypto.language as pl

@pl.program
class ThresholdHits:
    @pl.function(type=pl.FunctionType.AIV)
    def threshold_hits(self, x: pl.Tensor[[4096, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2097152)], hit_idx: pl.Out[pl.Tensor[[4096, 16], pl.INT32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 262144)]], hit_count: pl.Out[pl.Tensor[[1, 4096], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)]]) -> tuple[pl.Tensor[[4096, 16], pl.INT32], pl.Tensor[[1, 4096], pl.FP32]]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 32
        scores: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [row0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        cmp_tmp: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.create([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        pair: pl.Tuple[pl.Tile[[32, 16], pl.INT32, pl.Mem.Vec], pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec]] = pl.tile.gather_compare(scores, pl.const(0.0, pl.FP32), cmp_tmp, cmp_mode='gt', out_cols=16)
        hits: pl.Tile[[32, 16], pl.INT32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pair[0]
        counts: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pair[1]
        counts_f32: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.cast(counts, target_type=pl.FP32, mode='round')
        idx_stored: pl.Tensor[[4096, 16], pl.INT32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 262144)] = pl.tile.store(hits, [row0, 0], hit_idx)
        count_stored: pl.Tensor[[1, 4096], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)] = pl.tile.store(counts_f32, [0, row0], hit_count)
        return idx_stored, count_stored
