# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, src0: pl.Tensor[[16, 32], pl.INT32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], src1: pl.Tensor[[64, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)], src2: pl.Tensor[[48, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 6144)], src3: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 2048)], dst4: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 2048)]], cond: pl.Scalar[pl.INDEX], dst5: pl.Out[pl.Tensor[[16, 32], pl.INT32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 2048)]], dst6: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 2048)]], dst7: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 2048)]], cond1: pl.Scalar[pl.INDEX], dst8: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 2048)]], src9: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 2048)], dst10: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 2048)]], src11: pl.Tensor[[240, 32], pl.INT32, pl.MemRef("mem_ddr_11", pl.const(0, pl.INT64), 30720)], src12: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_12", pl.const(0, pl.INT64), 2048)], dst13: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_13", pl.const(0, pl.INT64), 2048)]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_14: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_15: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_16: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_17: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_20: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_21: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_37: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_38: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_39: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_40: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_44: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_67: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_68: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_69: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        v_1: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        v_2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src1, [48, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        v_3: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.mul(v_2, v_2)
        for i in pl.parallel(3):
            if i > 0:
                v_6: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_17, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.minimum(v_1, v_1)
                v_7: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_17, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.mul(v_3, v_3)
                ph4, sel5 = pl.yield_(v_7, v_7)
            else:
                mask8: pl.Tile[[16, 32], pl.UINT8, pl.MemRef(mem_vec_37, pl.const(0, pl.INT64), 2048), pl.Mem.Vec, pl.TileView(valid_shape=[16, 4])] = pl.tile.cmps(v_2, 0.0, cmp_type=2)
                v_9: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src2, [i * 16, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
                v_10: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.sels(mask8, v_3, v_9, -1.0)
                v_11: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_17, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.sub(v_9, v_10)
                ph4, sel5 = pl.yield_(v_11, v_11)
            v_12: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_17, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.adds(ph4, 0.0)
            v_13: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src3, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
            _s14: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 2048)] = pl.tile.store(v_12, [0, 0], dst4)
        v_2_carry: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_67, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(v_2, target_memory=pl.Mem.Vec)
        v_2_carry_1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_68, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(v_2, target_memory=pl.Mem.Vec)
        for i_1, (it15, it16, it17) in pl.range(1, 3, init_values=(v_2_carry, v_2_carry_1, v_1)):
            if cond < 3:
                v_20: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.shls(it17, pl.const(2, pl.INT32))
                v_21: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_68, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(v_2, it16)
                ph18, sel19 = pl.yield_(v_21, v_21)
            else:
                v_22: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.adds(it15, 0.5)
                v_23: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_68, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(it15, v_22)
                ph18, sel19 = pl.yield_(v_23, v_23)
            ph18_carry: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_67, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(ph18, target_memory=pl.Mem.Vec)
            out24, out25, out26 = pl.yield_(ph18_carry, ph18, it17)
        v_27: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(out26, out26)
        res28: pl.Tensor[[16, 32], pl.INT32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 2048)] = pl.tile.store(v_27, [0, 0], dst5)
        v_29: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_37, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.shr(v_27, v_27)
        v_30: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_38, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(v_27, v_29)
        v_31: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_39, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(v_3, v_3)
        v_32: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(v_30, v_29)
        res33: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 2048)] = pl.tile.store(v_31, [0, 0], dst6)
        if cond < 1:
            v_36: pl.Tile[[2, 32], pl.INT32, pl.MemRef(mem_vec_40, 768, 256), pl.Mem.Vec] = pl.tile.slice(v_32, [2, 32], [6, 0])
            v_37: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_38, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.reinterpret_view(v_30, dtype=pl.FP32)
            v_38: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_39, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.sub(v_37, v_31)
            v_39: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_38, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(v_37, v_37)
            v_40: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_38, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.sub(v_2, out24)
            sel34, sel35 = pl.yield_(v_29, v_40)
        else:
            v_2_carry_2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_69, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(v_2, target_memory=pl.Mem.Vec)
            for j, (acc41, acc42, acc43) in pl.range(1, 5, init_values=(v_32, v_2_carry_2, v_27)):
                v_44: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_44, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.mul(out25, v_3)
                v_45: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.mul(out26, acc43)
                v_46: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_69, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.mul(out24, acc42)
                v_47: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(v_45, acc43)
                res48, out49, res50 = pl.yield_(v_45, v_46, v_47)
            res48_mv: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_37, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(res48, target_memory=pl.Mem.Vec)
            out49_mv: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_38, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(out49, target_memory=pl.Mem.Vec)
            sel34, sel35 = pl.yield_(res48_mv, out49_mv)
        v_51: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src3, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        res52: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 2048)] = pl.tile.store(v_2, [0, 0], dst7)
        v_53: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_38, 0, 128), pl.Mem.Vec] = pl.tile.slice(sel35, [1, 32], [0, 0])
        v_54: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src3, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        v_55: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_17, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.neg(v_51)
        mask56: pl.Tile[[16, 32], pl.UINT8, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 2048), pl.Mem.Vec, pl.TileView(valid_shape=[16, 4])] = pl.tile.cmp(v_55, v_55, cmp_type=5)
        tmp57: pl.Tile[[1, 32], pl.UINT8, pl.MemRef(mem_vec_38, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        v_58: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.sel(mask56, v_55, v_55, tmp57)
        if cond < 1:
            if cond < 2:
                if cond1 < 4:
                    _s61: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 2048)] = pl.tile.store(v_2, [0, 0], dst8)
                    v_62: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src9, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
                    _s63: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 2048)] = pl.tile.store(v_62, [0, 0], dst10)
                v_64: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(v_54, v_58)
                sel60: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(v_64)
            else:
                for m, (acc65,) in pl.range(0, 16, 2, init_values=(sel34,)):
                    v_66: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_37, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src11, [m * 16, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
                    res67: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_37, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(v_66)
                v_68: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src12, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
                sel60: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(v_68)
            v_69: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(sel60, v_51)
            ph59: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(v_69)
        else:
            v_70: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(v_55, v_58)
            ph59: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(v_70)
        res71: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_13", pl.const(0, pl.INT64), 2048)] = pl.tile.store(ph59, [0, 0], dst13)
        return res71
