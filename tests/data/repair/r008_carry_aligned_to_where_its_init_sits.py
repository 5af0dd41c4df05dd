# Repair MR-R008 (the generated case g1322, backend 950): loop carry `it60` starts from `sel5`,
# an init that sits elsewhere than its printed MemRef says once the earlier fixups ran. PyPTO
# aligns the carry to the MemRef as printed, so the loop's writeback (`it60_mv`, the seed's S2)
# lands on bytes `sel5` still needs (V003, V004, V007 in `--exact`). The safe planner aligns
# the carry to where `sel5` sits.
# memreuse-test: backend=950 step0=off
# expect: repairs MR-R008
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, cond: pl.Scalar[pl.INDEX], src0: pl.Tensor[[16, 128], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], src1: pl.Tensor[[16, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)], src2: pl.Tensor[[64, 16], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2048)], dst3: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)]], src4: pl.Tensor[[128, 64], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 32768)], src5: pl.Tensor[[64, 16], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 4096)], dst6: pl.Out[pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 8192)]], dst7: pl.Out[pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 512)]], dst8: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 8192)]], dst9: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 8192)]], dst10: pl.Out[pl.Tensor[[2048, 1], pl.FP32, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 8192)]], dst11: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_11", pl.const(0, pl.INT64), 8192)]], dst12: pl.Out[pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_12", pl.const(0, pl.INT64), 8192)]], dst13: pl.Out[pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_13", pl.const(0, pl.INT64), 8192)]], dst14: pl.Out[pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_14", pl.const(0, pl.INT64), 8192)]], dst15: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_15", pl.const(0, pl.INT64), 8192)]], dst16: pl.Out[pl.Tensor[[16, 128], pl.FP16, pl.MemRef("mem_ddr_16", pl.const(0, pl.INT64), 4096)]], dst17: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_17", pl.const(0, pl.INT64), 8192)]], dst18: pl.Out[pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_18", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[128, 16], pl.FP32]:
        mem_vec_19: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_20: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_22: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_23: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_24: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_25: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_27: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_mat_28: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_29: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_left_30: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)
        mem_right_31: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512)
        mem_acc_32: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024)
        mem_left_33: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)
        mem_right_34: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512)
        mem_vec_35: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_36: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_37: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_39: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_mat_40: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_mat_41: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_left_42: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 32768)
        mem_right_43: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 4096)
        mem_acc_44: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_vec_45: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_46: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_47: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_49: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_50: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_51: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_52: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_53: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_54: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_56: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_57: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_58: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_59: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_64: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_65: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_66: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_67: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32)
        mem_vec_68: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        init1: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for i, (acc2,) in pl.parallel(0, 8, 2, init_values=(init1,)):
            x3: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.minimum(init1, init1)
            out4: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(acc2)
        if cond < 1:
            x6: pl.Tile[[16, 128], pl.FP16, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
            x7: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(init1, out4)
            sel5: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x7)
        else:
            x8: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_24, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pl.tile.row_sum(out4, init1)
            x9: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_25, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(out4, out4)
            sel5: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x9)
        x10: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.div(out4, init1)
        m11: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_mat_28, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(src1, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
        m12: pl.Tile[[64, 16], pl.BF16, pl.MemRef(mem_mat_29, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(src2, [0, 0], [64, 16], [64, 16], target_memory=pl.Mem.Mat)
        l13: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_left_30, pl.const(0, pl.INT64), 512), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(m11, 0, 0, [16, 16], target_memory=pl.Mem.Left)
        r14: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_right_31, pl.const(0, pl.INT64), 512), pl.Mem.Right] = pl.tile.extract(m12, 0, 0, [16, 16], target_memory=pl.Mem.Right)
        c15: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_32, pl.const(0, pl.INT64), 1024), pl.Mem.Acc] = pl.tile.matmul(l13, r14)
        for k, (acc16,) in pl.range(1, 4, init_values=(c15,)):
            l17: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_left_33, pl.const(0, pl.INT64), 512), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(m11, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)
            r18: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_right_34, pl.const(0, pl.INT64), 512), pl.Mem.Right] = pl.tile.extract(m12, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)
            x19: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_35, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.adds(x10, 1.0)
            x20: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_36, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.recip(x19)
            x21: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_37, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximums(out4, 0.0)
            c22: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_32, pl.const(0, pl.INT64), 1024), pl.Mem.Acc] = pl.tile.matmul_acc(acc16, l17, r18)
            cout23: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_32, pl.const(0, pl.INT64), 1024), pl.Mem.Acc] = pl.yield_(c22)
        res24: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = pl.tile.store(cout23, [0, 0], dst3)
        x25: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_39, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(x10, x10)
        m26: pl.Tile[[128, 64], pl.FP32, pl.MemRef(mem_mat_40, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(src4, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        m27: pl.Tile[[64, 16], pl.FP32, pl.MemRef(mem_mat_41, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(src5, [0, 0], [64, 16], [64, 16], target_memory=pl.Mem.Mat)
        l28: pl.Tile[[128, 64], pl.FP32, pl.MemRef(mem_left_42, pl.const(0, pl.INT64), 32768), pl.Mem.Left] = pl.tile.move(m26, target_memory=pl.Mem.Left)
        r29: pl.Tile[[64, 16], pl.FP32, pl.MemRef(mem_right_43, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.move(m27, target_memory=pl.Mem.Right)
        c30: pl.Tile[[128, 16], pl.FP32, pl.MemRef(mem_acc_44, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(l28, r29)
        res31: pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 8192)] = pl.tile.store(c30, [0, 0], dst6)
        if cond < 4:
            x32: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.lrelu(x25, 0.10000000000000001)
            if cond < 2:
                x34: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(x32, out4)
                ph33: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x34)
            else:
                x35: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_47, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.divs(x32, 0.5)
                ph33: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x35)
            x36: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_23, 0, 7712), pl.Mem.Vec] = pl.tile.slice(sel5, [16, 8], [0, 0])
            _s37: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 512)] = pl.tile.store(x36, [0, 0], dst7)
        if cond < 2:
            x39: pl.Tile[[2048, 1], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.reshape(x10, [2048, 1])
            if cond < 1:
                x40: pl.Tile[[256, 8], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.reshape(x10, [256, 8])
                x41: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_49, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(init1, target_memory=pl.Mem.Vec)
                _s42: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x41, [0, 0], dst8)
            else:
                for m in pl.range(0, 6, 2):
                    x43: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_50, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(x25)
                    _s44: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x43, [0, 0], dst9)
                x45: pl.Tile[[2048, 1], pl.FP32, pl.MemRef(mem_vec_51, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.lrelu(x39, 0.10000000000000001)
                _s46: pl.Tensor[[2048, 1], pl.FP32, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x45, [0, 0], dst10)
            x47: pl.Tile[[2048, 1], pl.FP32, pl.MemRef(mem_vec_52, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(x39, x39)
            x48: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_53, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sqrt(x10)
            ph38: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_53, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x48)
        else:
            x49: pl.Tile[[16, 128], pl.INT32, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.reinterpret_view(sel5, dtype=pl.INT32)
            x50: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_54, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(x25, x10)
            ph38: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_53, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x50)
        x51: pl.Tile[[128, 16], pl.FP32, pl.MemRef(mem_vec_56, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.transpose(x25, 0, 1)
        x52: pl.Tile[[128, 16], pl.FP32, pl.MemRef(mem_vec_57, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.fmod(x51, x51)
        res53: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_11", pl.const(0, pl.INT64), 8192)] = pl.tile.store(ph38, [0, 0], dst11)
        res54: pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_12", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x52, [0, 0], dst12)
        res55: pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_13", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x52, [0, 0], dst13)
        init56: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_58, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
        for i_1, (it57, it58) in pl.parallel(3, init_values=(init56, x52)):
            x59: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_59, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(x10, target_memory=pl.Mem.Vec)
            for j, (it60, it61) in pl.range(0, 16, 2, init_values=(sel5, it58)):
                _s62: pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_14", pl.const(0, pl.INT64), 8192)] = pl.tile.store(it61, [0, 0], dst14)
                res63, res64 = pl.yield_(it60, it61)
            res65, out66 = pl.yield_(it57, it58)
        if cond < 1:
            for j_1 in pl.range(0, 4, 2):
                x67: pl.Tile[[128, 16], pl.FP32, pl.MemRef(mem_vec_57, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(valid_shape=[91, 6])] = pl.tile.set_validshape(out66, 91, 6)
            _s68: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_15", pl.const(0, pl.INT64), 8192)] = pl.tile.store(res65, [0, 0], dst15)
            x69: pl.Tile[[16, 128], pl.FP16, pl.MemRef(mem_vec_64, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
            _s70: pl.Tensor[[16, 128], pl.FP16, pl.MemRef("mem_ddr_16", pl.const(0, pl.INT64), 4096)] = pl.tile.store(x69, [0, 0], dst16)
        for i_2 in pl.range(8):
            x71: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_65, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(init56, target_memory=pl.Mem.Vec)
            mask72: pl.Tile[[16, 32], pl.UINT8, pl.MemRef(mem_vec_66, pl.const(0, pl.INT64), 512), pl.Mem.Vec, pl.TileView(valid_shape=[16, 16])] = pl.tile.cmp(x71, res65, cmp_type=5)
            tmp73: pl.Tile[[1, 32], pl.UINT8, pl.MemRef(mem_vec_67, pl.const(0, pl.INT64), 32), pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
            x74: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_68, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sel(mask72, res65, ph38, tmp73)
            _s75: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_17", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x74, [0, 0], dst17)
        return pl.tile.store(out66, [0, 0], dst18)
