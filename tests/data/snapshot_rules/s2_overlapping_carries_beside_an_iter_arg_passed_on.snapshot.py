# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main(cond: pl.Scalar[pl.INDEX], src0: pl.Tensor[[128, 64], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], dst1: pl.Out[pl.Tensor[[1, 32], pl.UINT8, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32)]], dst2: pl.Out[pl.Tensor[[128, 64], pl.FP16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)]], dst3: pl.Out[pl.Tensor[[128, 64], pl.FP16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 16384)]], dst4: pl.Out[pl.Tensor[[128, 64], pl.FP16, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 16384)]], src5: pl.Tensor[[128, 64], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 32768)], src6: pl.Tensor[[32, 64], pl.FP16, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 4096)], src7: pl.Tensor[[8, 64], pl.BF16, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 1024)], src8: pl.Tensor[[512, 64], pl.INT32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 131072)], dst9: pl.Out[pl.Tensor[[128, 64], pl.INT32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 32768)]], dst10: pl.Out[pl.Tensor[[128, 64], pl.INT32, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 32768)]], dst11: pl.Out[pl.Tensor[[128, 64], pl.FP16, pl.MemRef("mem_ddr_11", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[128, 64], pl.FP16]:
        mem_vec_17: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_20: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_21: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_41: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_42: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_48: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_58: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_59: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_60: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_61: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_62: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_63: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_64: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_65: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        if cond < 3:
            v_1: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Vec)
            mask2: pl.Tile[[128, 32], pl.UINT8, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 32768), pl.Mem.Vec, pl.TileView(valid_shape=[128, 8])] = pl.tile.cmp(v_1, v_1, cmp_type=0)
            tmp3: pl.Tile[[1, 32], pl.UINT8, pl.MemRef(mem_vec_42, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
            v_4: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.sel(mask2, v_1, v_1, tmp3)
            v_5: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_21, 0, 16384), pl.Mem.Vec, pl.TileView(valid_shape=[41, 27])] = pl.tile.set_validshape(v_4, 41, 27)
            v_6: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.lrelu(v_4, 0.10000000000000001)
            _s7: pl.Tensor[[1, 32], pl.UINT8, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32)] = pl.tile.store(tmp3, [0, 0], dst1)
        v_8: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_17, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Vec)
        res9: pl.Tensor[[128, 64], pl.FP16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)] = pl.tile.store(v_8, [0, 0], dst2)
        v_8_carry: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_62, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(v_8, target_memory=pl.Mem.Vec)
        for i, (it10,) in pl.range(3, init_values=(v_8_carry,)):
            if cond < 1:
                v_8_carry_1: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_63, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(v_8, target_memory=pl.Mem.Vec)
                for m, (acc11,) in pl.range(2, init_values=(v_8_carry_1,)):
                    v_12: pl.Tile[[1, 64], pl.FP16, pl.MemRef(mem_vec_63, 0, 128), pl.Mem.Vec] = pl.tile.slice(acc11, [1, 64], [0, 0])
                    v_13: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_65, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.col_expand(acc11, v_12)
                    v_13_mv: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_63, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(v_13, target_memory=pl.Mem.Vec)
                    out14: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_63, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(v_13_mv)
                _s15: pl.Tensor[[128, 64], pl.FP16, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 16384)] = pl.tile.store(out14, [0, 0], dst3)
                _s16: pl.Tensor[[128, 64], pl.FP16, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 16384)] = pl.tile.store(out14, [0, 0], dst4)
            if cond < 3:
                v_19: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.maximum(v_8, it10)
                ph17, sel18 = pl.yield_(v_19, v_19)
            else:
                v_20: pl.Tile[[128, 64], pl.FP32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(src5, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Vec)
                v_21: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(src6, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
                if i == 0:
                    v_23: pl.Tile[[1, 64], pl.FP16, pl.MemRef(mem_vec_21, 0, 128), pl.Mem.Vec] = pl.tile.slice(v_21, [1, 64], [0, 0])
                    v_24: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.col_expand_div(v_21, v_23)
                    v_25: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.maximum(it10, it10)
                    ph22: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(v_25)
                else:
                    v_26: pl.Tile[[1, 64], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.col_min(it10)
                    v_27: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.sub(it10, v_8)
                    ph22: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(v_27)
                ph17, sel18 = pl.yield_(ph22, ph22)
            ph17_carry: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_58, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(ph17, target_memory=pl.Mem.Vec)
            sel18_carry: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_60, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(sel18, target_memory=pl.Mem.Vec)
            for j, (it28, it29, it30) in pl.range(2, init_values=(sel18_carry, it10, ph17_carry)):
                v_31: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_64, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.divs(it30, 2.0)
                v_32: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.cast(sel18, target_type=pl.BF16, mode='round')
                v_31_mv: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_60, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(v_31, target_memory=pl.Mem.Vec)
                it30_mv: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_62, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(it30, target_memory=pl.Mem.Vec)
                v_31_mv_1: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_58, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(v_31, target_memory=pl.Mem.Vec)
                out33, res34, out35 = pl.yield_(v_31_mv, it30_mv, v_31_mv_1)
            for j_1, (it36,) in pl.range(2, init_values=(out35,)):
                v_37: pl.Tile[[8, 64], pl.BF16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(src7, [0, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)
                for m_1, (it38, it39) in pl.range(0, 4, 2, init_values=(it36, v_37)):
                    v_40: pl.Tile[[8, 64], pl.BF16, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.move(v_37, target_memory=pl.Mem.Vec)
                    out41, res42 = pl.yield_(it38, it39)
                out43: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_58, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(out41)
            v_44: pl.Tile[[128, 64], pl.INT32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(src8, [384, 0], [128, 64], [128, 64], target_memory=pl.Mem.Vec)
            v_44_carry: pl.Tile[[128, 64], pl.INT32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.move(v_44, target_memory=pl.Mem.Vec)
            for j_2, (it45,) in pl.range(4, init_values=(v_44_carry,)):
                if cond < 4:
                    v_48: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_41, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.subs(out33, 0.0)
                    v_49: pl.Tile[[128, 64], pl.INT32, pl.MemRef(mem_vec_42, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.maximum(v_44, it45)
                    sel46, ph47 = pl.yield_(v_49, v_48)
                else:
                    v_50: pl.Tile[[1, 64], pl.FP16, pl.MemRef(mem_vec_59, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.col_max(sel18)
                    v_51: pl.Tile[[128, 64], pl.INT32, pl.MemRef(mem_vec_42, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.mul(it45, it45)
                    v_52: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_41, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.sub(out43, out43)
                    sel46, ph47 = pl.yield_(v_51, v_52)
                _s53: pl.Tensor[[128, 64], pl.INT32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 32768)] = pl.tile.store(sel46, [0, 0], dst9)
                ph47_carry: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_59, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(ph47, target_memory=pl.Mem.Vec)
                for m_2, (acc54, acc55) in pl.parallel(0, 2, 2, init_values=(ph47, ph47_carry)):
                    _s56: pl.Tensor[[128, 64], pl.INT32, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 32768)] = pl.tile.store(v_44, [0, 0], dst10)
                    v_57: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_48, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.mul(res34, acc54)
                    v_58: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_59, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.maximum(acc55, out35)
                    v_57_mv: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_41, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(v_57, target_memory=pl.Mem.Vec)
                    res59, out60 = pl.yield_(v_57_mv, v_58)
                sel46_mv: pl.Tile[[128, 64], pl.INT32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.move(sel46, target_memory=pl.Mem.Vec)
                out61: pl.Tile[[128, 64], pl.INT32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.yield_(sel46_mv)
            out35_mv: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_62, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.move(out35, target_memory=pl.Mem.Vec)
            out62: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_62, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(out35_mv)
        v_63: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.mul(out62, v_8)
        v_64: pl.Tile[[128, 128], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.concat(v_63, v_63)
        v_65: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.add(v_8, out62)
        v_66: pl.Tile[[128, 64], pl.FP16, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.rsqrt(v_65)
        res67: pl.Tensor[[128, 64], pl.FP16, pl.MemRef("mem_ddr_11", pl.const(0, pl.INT64), 16384)] = pl.tile.store(v_66, [0, 0], dst11)
        return res67
