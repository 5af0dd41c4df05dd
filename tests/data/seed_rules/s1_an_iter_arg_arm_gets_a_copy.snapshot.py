# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main(src0: pl.Tensor[[24, 64], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 3072)], src1: pl.Tensor[[3, 40], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 240)], src2: pl.Tensor[[16, 16], pl.FP16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 512)], src3: pl.Tensor[[32, 16], pl.FP16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)], dst4: pl.Out[pl.Tensor[[8, 64], pl.FP16, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 1024)]], src5: pl.Tensor[[4, 40], pl.FP16, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 320)], src6: pl.Tensor[[24, 64], pl.FP16, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 3072)], cond: pl.Scalar[pl.INDEX], dst7: pl.Out[pl.Tensor[[8, 1], pl.INT32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 32)]], src8: pl.Tensor[[48, 16], pl.FP16, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 1536)], dst9: pl.Out[pl.Tensor[[16, 16], pl.FP16, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 512)]], cond1: pl.Scalar[pl.INDEX], dst10: pl.Out[pl.Tensor[[3, 40], pl.FP16, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 240)]], dst11: pl.Out[pl.Tensor[[4, 40], pl.FP16, pl.MemRef("mem_ddr_11", pl.const(0, pl.INT64), 320)]], dst12: pl.Out[pl.Tensor[[4, 40], pl.INT32, pl.MemRef("mem_ddr_12", pl.const(0, pl.INT64), 640)]], dst13: pl.Out[pl.Tensor[[4, 40], pl.FP16, pl.MemRef("mem_ddr_13", pl.const(0, pl.INT64), 320)]]) -> pl.Tensor[[4, 40], pl.FP16]:
        mem_vec_14: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_21: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_23: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 320)
        mem_vec_26: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 320)
        mem_vec_28: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_29: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_33: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16)
        mem_vec_37: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32)
        mem_vec_55: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 320)
        tile_1: pl.Tile[[8, 64], pl.FP16, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src0, [16, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)
        for i, (acc2,) in pl.range(2, init_values=(tile_1,)):
            tile_3: pl.Tile[[4, 64], pl.FP16, pl.MemRef(mem_vec_14, 0, 512), pl.Mem.Vec] = pl.tile.slice(tile_1, [4, 64], [0, 0])
            tile_4: pl.Tile[[3, 40], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src1, [0, 0], [3, 40], [3, 40], target_memory=pl.Mem.Vec)
            tile_5: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, fractal=1024)] = pl.tile.load(src2, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
            tile_6: pl.Tile[[4, 64], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.div(tile_3, tile_3)
            tile_7: pl.Tile[[4, 64], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.maximums(tile_6, 2.0)
            tile_8: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src3, [i * 16, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
            out9: pl.Tile[[8, 64], pl.FP16, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(acc2)
        tile_10: pl.Tile[[2, 256], pl.FP16, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.reshape(out9, [2, 256])
        tile_11: pl.Tile[[2, 256], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.abs(tile_10)
        tile_12: pl.Tile[[3, 40], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, fractal=1024)] = pl.tile.load(src1, [0, 0], [3, 40], [3, 40], target_memory=pl.Mem.Vec)
        res13: pl.Tensor[[8, 64], pl.FP16, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 1024)] = pl.tile.store(tile_1, [0, 0], dst4)
        for i_1 in pl.range(0, 4, 2):
            tile_14: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 320), pl.Mem.Vec] = pl.tile.load(src5, [0, 0], [4, 40], [4, 40], target_memory=pl.Mem.Vec)
            tile_15: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(valid_shape=[1, 40])] = pl.tile.load(src5, [0, 0], [4, 40], [1, 40], target_memory=pl.Mem.Vec)
            tile_16: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)] = pl.tile.fillpad(tile_15, pad_value=pl.PadValue.max)
            tile_17: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_26, pl.const(0, pl.INT64), 320), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)] = pl.tile.add(tile_16, tile_16)
            tile_18: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)] = pl.tile.add(tile_17, tile_16)
            init19: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.full([16, 16], dtype=pl.FP16, value=0.0)
            tile_14_carry: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_55, pl.const(0, pl.INT64), 320), pl.Mem.Vec] = pl.tile.move(tile_14, target_memory=pl.Mem.Vec)
            for j, (acc20,) in pl.range(3, init_values=(tile_14_carry,)):
                tile_21: pl.Tile[[8, 64], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src6, [j * 8, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)
                tile_22: pl.Tile[[8, 1], pl.FP16, pl.MemRef(mem_vec_37, pl.const(0, pl.INT64), 32), pl.Mem.Vec] = pl.tile.row_max(out9, tile_21)
                if j < 2:
                    tile_25: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.sub(acc20, tile_14)
                    tile_26: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.sub(acc20, acc20)
                    tile_27: pl.Tile[[8, 1], pl.FP16, pl.MemRef(mem_vec_33, pl.const(0, pl.INT64), 16), pl.Mem.Vec] = pl.tile.sub(tile_22, tile_22)
                    ph23, sel24 = pl.yield_(tile_26, tile_27)
                else:
                    tile_28: pl.Tile[[8, 1], pl.FP16, pl.MemRef(mem_vec_37, pl.const(0, pl.INT64), 32), pl.Mem.Vec] = pl.tile.abs(tile_22)
                    acc20_mv: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.move(acc20, target_memory=pl.Mem.Vec)
                    tile_28_mv: pl.Tile[[8, 1], pl.FP16, pl.MemRef(mem_vec_33, pl.const(0, pl.INT64), 16), pl.Mem.Vec] = pl.tile.move(tile_28, target_memory=pl.Mem.Vec)
                    ph23, sel24 = pl.yield_(acc20_mv, tile_28_mv)
                if cond < 2:
                    tile_29: pl.Tile[[8, 1], pl.INT32, pl.MemRef(mem_vec_37, pl.const(0, pl.INT64), 32), pl.Mem.Vec] = pl.tile.cast(sel24, target_type=pl.INT32, mode='round')
                    _s30: pl.Tensor[[8, 1], pl.INT32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 32)] = pl.tile.store(tile_29, [0, 0], dst7)
                tile_31: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_55, pl.const(0, pl.INT64), 320), pl.Mem.Vec] = pl.tile.mul(ph23, tile_14)
                res32: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_55, pl.const(0, pl.INT64), 320), pl.Mem.Vec] = pl.yield_(tile_31)
            tile_33: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)] = pl.tile.divs(tile_17, -1.0)
            tile_34: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src8, [i_1 * 16, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
            _s35: pl.Tensor[[16, 16], pl.FP16, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 512)] = pl.tile.store(init19, [0, 0], dst9)
        tile_36: pl.Tile[[2, 256], pl.FP16, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(tile_11, tile_11)
        tile_37: pl.Tile[[2, 256], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(tile_36, tile_36)
        tile_38: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src5, [0, 0], [4, 40], [4, 40], target_memory=pl.Mem.Vec)
        tile_39: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_29, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(valid_shape=[1, 40])] = pl.tile.load(src5, [0, 0], [4, 40], [1, 40], target_memory=pl.Mem.Vec)
        tile_40: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)] = pl.tile.fillpad(tile_39, pad_value=pl.PadValue.max)
        tile_41: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 320), pl.Mem.Vec] = pl.tile.sub(tile_38, tile_38)
        tile_42: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_26, pl.const(0, pl.INT64), 320), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)] = pl.tile.rsqrt(tile_40)
        if cond < 1:
            tile_43: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(valid_shape=[1, 40])] = pl.tile.add(tile_39, tile_39)
            tile_44: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(valid_shape=[1, 40])] = pl.tile.add(tile_43, tile_43)
            tile_45: pl.Tile[[3, 40], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(src1, [0, 0], [3, 40], [3, 40], target_memory=pl.Mem.Vec)
            _s46: pl.Tensor[[3, 40], pl.FP16, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 240)] = pl.tile.store(tile_45, [0, 0], dst10)
        else:
            _s47: pl.Tensor[[4, 40], pl.FP16, pl.MemRef("mem_ddr_11", pl.const(0, pl.INT64), 320)] = pl.tile.store(tile_42, [0, 0], dst11)
            tile_48: pl.Tile[[4, 40], pl.INT32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.cast(tile_41, target_type=pl.INT32, mode='round')
            tile_49: pl.Tile[[2, 256], pl.FP16, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(tile_36, tile_36)
            _s50: pl.Tensor[[4, 40], pl.INT32, pl.MemRef("mem_ddr_12", pl.const(0, pl.INT64), 640)] = pl.tile.store(tile_48, [0, 0], dst12)
        tile_51: pl.Tile[[4, 40], pl.FP16, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 1024), pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)] = pl.tile.add(tile_40, tile_42)
        res52: pl.Tensor[[4, 40], pl.FP16, pl.MemRef("mem_ddr_13", pl.const(0, pl.INT64), 320)] = pl.tile.store(tile_51, [0, 0], dst13)
        return res52
