# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, src0: pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], src1: pl.Tensor[[72, 64], pl.INT32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 18432)], cond: pl.Scalar[pl.INDEX], src2: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)], cond1: pl.Scalar[pl.INDEX], dst3: pl.Out[pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)]], src4: pl.Tensor[[48, 16], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 3072)], src5: pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 1024)], dst6: pl.Out[pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 1024)]], dst7: pl.Out[pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.INT32]:
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_16: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_21: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_22: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_40: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_42: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_44: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        tile_1: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i in pl.range(1, 9):
            tile_2: pl.Tile[[8, 64], pl.INT32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src1, [i * 8, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)
            tile_3: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            if i == 0:
                tile_5: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.div(tile_3, tile_3)
                tile_6: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.maximum(tile_1, tile_1)
                ph4: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(tile_6)
            else:
                tile_7: pl.Tile[[8, 64], pl.INT32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.shrs(tile_2, pl.const(255, pl.INT32))
                tile_8: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
                tile_8_mv: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.move(tile_8, target_memory=pl.Mem.Vec)
                ph4: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(tile_8_mv)
            tile_9: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(ph4, tile_1)
            tile_10: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(tile_9, ph4)
        tile_11: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(tile_1, tile_1)
        if cond < 2:
            tile_14: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.shr(tile_11, tile_1)
            tile_15: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.mul(tile_14, tile_11)
            ph12, ph13 = pl.yield_(tile_14, tile_15)
        else:
            if cond < 4:
                tile_17: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
                tile_18: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(valid_shape=[3, 16])] = pl.tile.load(src0, [0, 0], [16, 16], [3, 16], target_memory=pl.Mem.Vec)
                tile_19: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.min)] = pl.tile.fillpad(tile_18, pad_value=pl.PadValue.min)
                ph16: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(tile_17)
            else:
                tile_20: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src2, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
                tile_21: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.maximum(tile_1, tile_1)
                ph16: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(tile_21)
            tile_1_mv: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.move(tile_1, target_memory=pl.Mem.Vec)
            ph16_mv: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.move(ph16, target_memory=pl.Mem.Vec)
            ph12, ph13 = pl.yield_(tile_1_mv, ph16_mv)
        if cond < 4:
            tile_23: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.sub(tile_1, ph12)
            tile_24: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.or_(ph13, tile_23)
            tile_25: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(ph13, tile_24)
            sel22: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(tile_23)
        else:
            tile_26: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.shr(ph12, ph12)
            tile_27: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.cast(ph12, target_type=pl.FP32, mode='trunc')
            tile_28: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.and_(ph13, ph13)
            tile_29: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_22, 32, 992), pl.Mem.Vec] = pl.tile.slice(tile_27, [16, 8], [0, 8])
            sel22: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(tile_28)
        res30: pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = pl.tile.store(ph13, [0, 0], dst3)
        for i_1, (it31, it32) in pl.range(0, 8, 2, init_values=(tile_11, sel22)):
            tile_33: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(it32, it32)
            tile_34: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.adds(it32, pl.const(1, pl.INT32))
            it31_mv: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.move(it31, target_memory=pl.Mem.Vec)
            tile_34_mv: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(tile_34, target_memory=pl.Mem.Vec)
            out35, res36 = pl.yield_(tile_34_mv, it31_mv)
        tile_37: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.expands(res36, pl.const(2, pl.INT32))
        for i_2, (it38, it39) in pl.range(0, 4, 2, init_values=(ph13, res36)):
            tile_40: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.sub(it38, it39)
            tile_41: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_42, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.shls(it38, pl.const(2, pl.INT32))
            tile_42: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_42, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(tile_37, tile_41)
            tile_43: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_44, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.shls(ph12, pl.const(2, pl.INT32))
            tile_44: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_44, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src4, [i_2 * 16, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
            tile_45: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(tile_40, tile_42)
            res46, out47 = pl.yield_(tile_45, it39)
        tile_48: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.cast(out35, target_type=pl.BF16, mode='trunc')
        if cond < 3:
            if cond1 < 2:
                tile_51: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src5, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
                tile_52: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.mul(tile_48, tile_48)
                sel50: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(tile_52)
            else:
                init53: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
                for m, (acc54,) in pl.range(1, 3, init_values=(init53,)):
                    _s55: pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 1024)] = pl.tile.store(tile_37, [0, 0], dst6)
                    res56: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(acc54)
                tile_57: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.sub(tile_48, tile_48)
                tile_57_mv: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.move(tile_57, target_memory=pl.Mem.Vec)
                sel50: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(tile_57_mv)
            for j, (it58, acc59) in pl.range(8, init_values=(sel50, tile_37)):
                tile_60: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.adds(acc59, pl.const(1, pl.INT32))
                out61, out62 = pl.yield_(it58, tile_60)
            ph49: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(out62)
        else:
            for j_1, (acc63,) in pl.range(8, init_values=(res46,)):
                res64: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(acc63)
            res64_mv: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.move(res64, target_memory=pl.Mem.Vec)
            ph49: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(res64_mv)
        res65: pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 1024)] = pl.tile.store(ph49, [0, 0], dst7)
        return res65
