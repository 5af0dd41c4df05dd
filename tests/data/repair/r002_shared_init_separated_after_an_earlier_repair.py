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
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_14: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_15: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_16: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_17: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_18: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_19: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_22: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_23: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_24: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_25: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_27: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_28: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_29: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_30: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        tile_1: pl.Tile[[64, 32], pl.FP32, pl.MemRef(scratch0, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Vec)
        tile_2: pl.Tile[[64, 32], pl.FP32, pl.MemRef(scratch0, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.neg(tile_1)
        tile_3: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(tile_2)
        tile_4: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.neg(tile_3)
        tile_5: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(tile_4)
        for i, (it6, acc7) in pl.range(3, init_values=(tile_5, tile_5)):
            tile_8: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.row_sum(it6, tile_5)
            tile_9: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(acc7, acc7)
            out10, res11 = pl.yield_(tile_9, tile_9)
        if cond < 2:
            if cond < 1:
                tile_13: pl.Tile[[64, 32], pl.BF16, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.cast(res11, target_type=pl.BF16, mode='round')
                tile_14: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(tile_5, out10)
                ph12: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(tile_14)
            else:
                if cond < 3:
                    tile_16: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.minimums(out10, 1.0)
                    sel15: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(tile_16)
                else:
                    tile_17: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_17, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(src1, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Vec)
                    tile_18: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_18, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.tile.load(src2, [0, 0], [64, 32], [8, 32], target_memory=pl.Mem.Vec)
                    tile_19: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.zero)] = pl.tile.fillpad(tile_18, pad_value=pl.PadValue.zero)
                    sel15: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(tile_17)
                ph12: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(sel15)
            tile_20: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.div(res11, res11)
            _s21: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 8192)] = pl.tile.store(ph12, [0, 0], dst3)
        else:
            tile_22: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(res11, tile_3)
            tile_23: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_24, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.minimums(tile_22, -1.0)
            _s24: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 8192)] = pl.tile.store(tile_23, [0, 0], dst4)
        for i_1 in pl.range(1, 4):
            for j, (acc25,) in pl.range(0, 16, 2, init_values=(tile_4,)):
                tile_26: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_25, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(acc25, acc25)
                out27: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(acc25)
            tile_28: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.col_min(res11)
            _s29: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 8192)] = pl.tile.store(out27, [0, 0], dst5)
        mask30: pl.Tile[[64, 32], pl.UINT8, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 2048), pl.Mem.Vec, pl.TileView(valid_shape=[64, 4])] = pl.tile.cmps(tile_4, 0.0, cmp_type=0)
        tile_31: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(src1, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Vec)
        tile_32: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_30, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sels(mask30, tile_5, tile_31, -1.0)
        res33: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 8192)] = pl.tile.store(tile_32, [0, 0], dst6)
        return res33
