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
        mem_vec_25: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_27: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_35: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_36: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_mat_40: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_mat_41: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_left_42: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 32768)
        mem_right_43: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 4096)
        mem_acc_44: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_vec_46: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        init1: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for i, (acc2,) in pl.parallel(0, 8, 2, init_values=(init1,)):
            x3: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.minimum(init1, init1)
            out4: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(acc2)
        if cond < 1:
            x6: pl.Tile[[16, 128], pl.FP16, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
            x7: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(init1, out4)
            sel5: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x7)
        else:
            x8: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_25, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.row_sum(out4, init1)
            x9: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_25, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(out4, out4)
            x9_mv: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(x9, target_memory=pl.Mem.Vec)
            sel5: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x9_mv)
        x10: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.div(out4, init1)
        m11: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_mat_40, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(src1, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
        m12: pl.Tile[[64, 16], pl.BF16, pl.MemRef(mem_mat_41, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(src2, [0, 0], [64, 16], [64, 16], target_memory=pl.Mem.Mat)
        l13: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_left_42, pl.const(0, pl.INT64), 32768), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(m11, 0, 0, [16, 16], target_memory=pl.Mem.Left)
        r14: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_right_43, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.extract(m12, 0, 0, [16, 16], target_memory=pl.Mem.Right)
        c15: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_44, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(l13, r14)
        for k, (acc16,) in pl.range(1, 4, init_values=(c15,)):
            l17: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_left_42, pl.const(0, pl.INT64), 32768), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(m11, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)
            r18: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_right_43, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.extract(m12, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)
            x19: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_35, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.adds(x10, 1.0)
            x20: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_36, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.recip(x19)
            x21: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_35, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximums(out4, 0.0)
            c22: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_44, 0, 1024), pl.Mem.Acc] = pl.tile.matmul_acc(acc16, l17, r18)
            cout23: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_44, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(c22)
        res24: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = pl.tile.store(cout23, [0, 0], dst3)
        x25: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_35, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(x10, x10)
        m26: pl.Tile[[128, 64], pl.FP32, pl.MemRef(mem_mat_40, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(src4, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        m27: pl.Tile[[64, 16], pl.FP32, pl.MemRef(mem_mat_41, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(src5, [0, 0], [64, 16], [64, 16], target_memory=pl.Mem.Mat)
        l28: pl.Tile[[128, 64], pl.FP32, pl.MemRef(mem_left_42, pl.const(0, pl.INT64), 32768), pl.Mem.Left] = pl.tile.move(m26, target_memory=pl.Mem.Left)
        r29: pl.Tile[[64, 16], pl.FP32, pl.MemRef(mem_right_43, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.move(m27, target_memory=pl.Mem.Right)
        c30: pl.Tile[[128, 16], pl.FP32, pl.MemRef(mem_acc_44, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(l28, r29)
        res31: pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 8192)] = pl.tile.store(c30, [0, 0], dst6)
        if cond < 4:
            x32: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_36, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.lrelu(x25, 0.10000000000000001)
            if cond < 2:
                x34: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(x32, out4)
                ph33: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x34)
            else:
                x35: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_36, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.divs(x32, 0.5)
                x35_mv: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(x35, target_memory=pl.Mem.Vec)
                ph33: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x35_mv)
            x36: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_20, 0, 7712), pl.Mem.Vec] = pl.tile.slice(sel5, [16, 8], [0, 0])
            _s37: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 512)] = pl.tile.store(x36, [0, 0], dst7)
        if cond < 2:
            x39: pl.Tile[[2048, 1], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.reshape(x10, [2048, 1])
            if cond < 1:
                x40: pl.Tile[[256, 8], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.reshape(x10, [256, 8])
                x41: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_36, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(init1, target_memory=pl.Mem.Vec)
                _s42: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x41, [0, 0], dst8)
            else:
                for m in pl.range(0, 6, 2):
                    x43: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(x25)
                    _s44: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x43, [0, 0], dst9)
                x45: pl.Tile[[2048, 1], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.lrelu(x39, 0.10000000000000001)
                _s46: pl.Tensor[[2048, 1], pl.FP32, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x45, [0, 0], dst10)
            x47: pl.Tile[[2048, 1], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(x39, x39)
            x48: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sqrt(x10)
            ph38: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x48)
        else:
            x49: pl.Tile[[16, 128], pl.INT32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.reinterpret_view(sel5, dtype=pl.INT32)
            x50: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sub(x25, x10)
            ph38: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.yield_(x50)
        x51: pl.Tile[[128, 16], pl.FP32, pl.MemRef(mem_vec_36, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.transpose(x25, 0, 1)
        x52: pl.Tile[[128, 16], pl.FP32, pl.MemRef(mem_vec_35, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.fmod(x51, x51)
        res53: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_11", pl.const(0, pl.INT64), 8192)] = pl.tile.store(ph38, [0, 0], dst11)
        res54: pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_12", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x52, [0, 0], dst12)
        res55: pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_13", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x52, [0, 0], dst13)
        init56: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_36, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
        for i_1, (it57, it58) in pl.parallel(3, init_values=(init56, x52)):
            x59: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(x10, target_memory=pl.Mem.Vec)
            for j, (it60, it61) in pl.range(0, 16, 2, init_values=(sel5, it58)):
                _s62: pl.Tensor[[128, 16], pl.FP32, pl.MemRef("mem_ddr_14", pl.const(0, pl.INT64), 8192)] = pl.tile.store(it61, [0, 0], dst14)
                res63, res64 = pl.yield_(it60, it61)
            res65, out66 = pl.yield_(it57, it58)
        if cond < 1:
            for j_1 in pl.range(0, 4, 2):
                x67: pl.Tile[[128, 16], pl.FP32, pl.MemRef(mem_vec_35, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(valid_shape=[91, 6])] = pl.tile.set_validshape(out66, 91, 6)
            _s68: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_15", pl.const(0, pl.INT64), 8192)] = pl.tile.store(res65, [0, 0], dst15)
            x69: pl.Tile[[16, 128], pl.FP16, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
            _s70: pl.Tensor[[16, 128], pl.FP16, pl.MemRef("mem_ddr_16", pl.const(0, pl.INT64), 4096)] = pl.tile.store(x69, [0, 0], dst16)
        for i_2 in pl.range(8):
            x71: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.move(init56, target_memory=pl.Mem.Vec)
            mask72: pl.Tile[[16, 32], pl.UINT8, pl.MemRef(mem_vec_25, pl.const(0, pl.INT64), 8192), pl.Mem.Vec, pl.TileView(valid_shape=[16, 16])] = pl.tile.cmp(x71, res65, cmp_type=5)
            tmp73: pl.Tile[[1, 32], pl.UINT8, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
            x74: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.sel(mask72, res65, ph38, tmp73)
            _s75: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_17", pl.const(0, pl.INT64), 8192)] = pl.tile.store(x74, [0, 0], dst17)
        return pl.tile.store(out66, [0, 0], dst18)
## repairs
r008_carry_aligned_to_where_its_init_sits.py:126:21: warning[MR-R008]: PyPTO leaves loop carry 'it60' on 'mem_vec_23', off 'mem_vec_20' where its init value 'sel5' sits (PyPTO aligns it to the init's MemRef as printed, but the init sits elsewhere: an if result ends up on its arm's value's buffer, an init printed without a type on its seed's), so the carry would not receive its init; the repaired plan puts it on 'mem_vec_20'
