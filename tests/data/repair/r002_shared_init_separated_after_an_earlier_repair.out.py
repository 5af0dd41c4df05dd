# Repair MR-R002 after another repair (memreuse-repair's crate doc, on the words of repairs):
# loop carries 'it6' and 'acc7' both start from 'tile_5', so both sit on its buffer
# 'mem_vec_9' (rule §3.1). PyPTO's plan passes the seed's S2; once MR-R004 gives 'tile_9' its
# own allocation, the yield fixup would write one carry over the other, and the repair
# separates them. Its warning says this happens "once the repairs before this one are made",
# not that PyPTO's plan does it. Case g1182 of the conformance corpus.
# memreuse-test: backend=950 step0=off
# expect: repairs MR-R004 MR-R002 MR-R002
# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, src0: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], cond: pl.Scalar[pl.INDEX], src1: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)], src2: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)], dst3: pl.Out[pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 8192)]], dst4: pl.Out[pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 8192)]], dst5: pl.Out[pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 8192)]], dst6: pl.Out[pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[64, 32], pl.FP32]:
        scratch0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192, pinned=True)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_18: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_31: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_32: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_33: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        tile_1: pl.Tile[[64, 32], pl.FP32, pl.MemRef(scratch0, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Vec)
        tile_2: pl.Tile[[64, 32], pl.FP32, pl.MemRef(scratch0, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.neg(tile_1)
        tile_3: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(tile_2)
        tile_4: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.neg(tile_3)
        tile_5: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(tile_4)
        tile_5_carry: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_32, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(tile_5, target_memory=pl.Mem.Vec)
        tile_5_carry_1: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_33, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(tile_5, target_memory=pl.Mem.Vec)
        for i, (it6, acc7) in pl.range(3, init_values=(tile_5_carry_1, tile_5_carry)):
            tile_8: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_31, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.row_sum(it6, tile_5)
            tile_9: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_31, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(acc7, acc7)
            tile_9_mv: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_33, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(tile_9, target_memory=pl.Mem.Vec)
            tile_9_mv_1: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_32, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(tile_9, target_memory=pl.Mem.Vec)
            out10, res11 = pl.yield_(tile_9_mv, tile_9_mv_1)
        if cond < 2:
            if cond < 1:
                tile_13: pl.Tile[[64, 32], pl.BF16, pl.MemRef(mem_vec_31, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.cast(res11, target_type=pl.BF16, mode='round')
                tile_14: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_31, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(tile_5, out10)
                ph12: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_31, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(tile_14)
            else:
                if cond < 3:
                    tile_16: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_33, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.minimums(out10, 1.0)
                    sel15: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_33, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(tile_16)
                else:
                    tile_17: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_33, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(src1, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Vec)
                    tile_18: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_18, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.tile.load(src2, [0, 0], [64, 32], [8, 32], target_memory=pl.Mem.Vec)
                    tile_19: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_18, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.zero)] = pl.tile.fillpad(tile_18, pad_value=pl.PadValue.zero)
                    sel15: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_33, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(tile_17)
                sel15_mv: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_31, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(sel15, target_memory=pl.Mem.Vec)
                ph12: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_31, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(sel15_mv)
            tile_20: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_18, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.div(res11, res11)
            _s21: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 8192)] = pl.tile.store(ph12, [0, 0], dst3)
        else:
            tile_22: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(res11, tile_3)
            tile_23: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.minimums(tile_22, -1.0)
            _s24: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 8192)] = pl.tile.store(tile_23, [0, 0], dst4)
        for i_1 in pl.range(1, 4):
            for j, (acc25,) in pl.range(0, 16, 2, init_values=(tile_4,)):
                tile_26: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(acc25, acc25)
                out27: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(acc25)
            tile_28: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.col_min(res11)
            _s29: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 8192)] = pl.tile.store(out27, [0, 0], dst5)
        mask30: pl.Tile[[64, 32], pl.UINT8, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(valid_shape=[64, 4])] = pl.tile.cmps(tile_4, 0.0, cmp_type=0)
        tile_31: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(src1, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Vec)
        tile_32: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sels(mask30, tile_5, tile_31, -1.0)
        res33: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 8192)] = pl.tile.store(tile_32, [0, 0], dst6)
        return res33
## repairs
r002_shared_init_separated_after_an_earlier_repair.py:42:133: warning[MR-R004]: the input puts 'tile_9' on 'mem_vec_9', the buffer of 'tile_5' (an upstream Step 0 retarget), which is unsafe: 'tile_5' is read here, but its bytes [0, 8192) of 'mem_vec_9' were overwritten by 'tile_9'; the repaired plan gives 'tile_9' its own allocation 'mem_vec_31'
  r002_shared_init_separated_after_an_earlier_repair.py:40:9: note: 'tile_5' is defined here
  r002_shared_init_separated_after_an_earlier_repair.py:43:13: note: 'tile_9' is written over 'tile_5' here
r002_shared_init_separated_after_an_earlier_repair.py:41:9: warning[MR-R002]: once the repairs before this one are made, loop carries 'it6' and 'acc7' sit on one buffer, 'mem_vec_9', because both start from 'tile_5', so their writebacks overwrite each other (the seed's S2 rejects this); the repaired plan feeds 'acc7' from 'tile_5_carry', a copy of 'tile_5' in its own allocation 'mem_vec_32'
r002_shared_init_separated_after_an_earlier_repair.py:42:133: warning[MR-R002]: PyPTO keeps loop carry 'it6' on 'mem_vec_9', the buffer of its init value 'tile_5', which is unsafe: 'tile_5' is read here, but its bytes [0, 8192) of 'mem_vec_9' were overwritten by 'tile_9_mv' (a copy memreuse inserted for 'tile_9'); the repaired plan feeds it from 'tile_5_carry_1', a copy of 'tile_5' in its own allocation 'mem_vec_33'
  r002_shared_init_separated_after_an_earlier_repair.py:40:9: note: 'tile_5' is defined here
  r002_shared_init_separated_after_an_earlier_repair.py:43:13: note: 'tile_9_mv' (a copy memreuse inserted for 'tile_9') is written over 'tile_5' here
