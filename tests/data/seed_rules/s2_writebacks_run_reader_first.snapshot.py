# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, src0: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], dst1: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)]], src2: pl.Tensor[[8, 8], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 256)], dst3: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 2048)]], cond: pl.Scalar[pl.INDEX], dst4: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 2048)]], src5: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 2048)], dst6: pl.Out[pl.Tensor[[8, 8], pl.FP16, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 128)]], dst7: pl.Out[pl.Tensor[[8, 8], pl.FP16, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 128)]], src8: pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 512)], dst9: pl.Out[pl.Tensor[[8, 8], pl.INT32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 256)]], dst10: pl.Out[pl.Tensor[[8, 1], pl.FP32, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 32)]], src11: pl.Tensor[[8, 8], pl.FP32, pl.MemRef("mem_ddr_11", pl.const(0, pl.INT64), 256)], dst12: pl.Out[pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_12", pl.const(0, pl.INT64), 512)]]) -> pl.Tensor[[8, 16], pl.FP32]:
        mem_vec_13: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_14: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_15: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_16: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_18: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_19: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_20: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_21: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_22: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_23: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_27: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_61: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_62: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_63: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_64: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        buf1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src0, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        res2: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)] = pl.tile.store(buf1, [0, 0], dst1)
        buf3: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(buf1, buf1)
        buf4: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.minimum(buf3, buf3)
        buf5: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(src2, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        buf6: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.reinterpret_view(buf5, dtype=pl.INT32)
        buf7: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.ors(buf6, pl.const(3, pl.INT32))
        buf8: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_18, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.maximum(buf6, buf7)
        buf9: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.move(buf6, target_memory=pl.Mem.Vec)
        buf10: pl.Tile[[8, 8], pl.FP16, pl.MemRef(mem_vec_20, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.cast(buf6, target_type=pl.FP16, mode='round')
        buf11: pl.Tile[[8, 8], pl.FP16, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.add(buf10, buf10)
        buf12: pl.Tile[[8, 8], pl.FP16, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.minimum(buf11, buf10)
        buf13: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.shl(buf7, buf9)
        res14: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 2048)] = pl.tile.store(buf4, [0, 0], dst3)
        if cond < 3:
            buf16: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.shl(buf13, buf13)
            init17: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.create([8, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            buf4_carry: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(buf4, target_memory=pl.Mem.Vec)
            buf1_carry: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_62, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(buf1, target_memory=pl.Mem.Vec)
            for j, (acc18, it19, acc20) in pl.range(0, 8, 2, init_values=(buf4_carry, buf5, buf1_carry)):
                for m, (acc21,) in pl.range(1, init_values=(buf4,)):
                    _s22: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 2048)] = pl.tile.store(acc21, [0, 0], dst4)
                    out23: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(acc21)
                buf24: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.sub(buf4, buf1)
                buf24_mv: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(buf24, target_memory=pl.Mem.Vec)
                out23_mv: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_62, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(out23, target_memory=pl.Mem.Vec)
                out25, res26, out27 = pl.yield_(buf24_mv, it19, out23_mv)
            res26_phi: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_64, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.move(res26, target_memory=pl.Mem.Vec)
            sel15: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_64, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.yield_(res26_phi)
        else:
            if cond < 2:
                buf29: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(buf13, buf13)
                buf30: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src5, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
                ph28: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(buf30)
            else:
                if cond < 1:
                    buf32: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(buf8, buf8)
                    buf33: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(buf5, buf5)
                    sel31: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(buf33)
                else:
                    buf34: pl.Tile[[8, 8], pl.FP16, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(buf12, buf12)
                    buf35: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.mul(buf5, buf5)
                    sel31: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(buf35)
                buf36: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.sub(buf4, buf4)
                ph28: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(buf36)
            buf37: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.sub(buf5, buf5)
            buf37_mv: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_64, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.move(buf37, target_memory=pl.Mem.Vec)
            sel15: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_64, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.yield_(buf37_mv)
        if cond < 2:
            buf39: pl.Tile[[8, 1], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.row_sum(sel15, buf5)
            buf40: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(buf5, buf5)
            sel38: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(buf40)
        else:
            if cond < 4:
                buf42: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_18, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.add(buf13, buf9)
                ph41: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(buf1)
            else:
                buf43: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.fmods(buf4, 3.0)
                ph41: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(buf43)
            buf44: pl.Tile[[8, 8], pl.FP16, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.rsqrt(buf11)
            _s45: pl.Tensor[[8, 8], pl.FP16, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 128)] = pl.tile.store(buf44, [0, 0], dst6)
            buf46: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(buf5, buf5)
            buf46_mv: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.move(buf46, target_memory=pl.Mem.Vec)
            sel38: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(buf46_mv)
        buf47: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_27, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(sel38, sel38)
        res48: pl.Tensor[[8, 8], pl.FP16, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 128)] = pl.tile.store(buf10, [0, 0], dst7)
        buf49: pl.Tile[[4, 8], pl.FP32, pl.MemRef(mem_vec_27, 0, 128), pl.Mem.Vec] = pl.tile.slice(buf47, [4, 8], [0, 0])
        buf50: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.concat(buf47, sel15)
        buf51: pl.Tile[[8, 8], pl.INT32, pl.MemRef(mem_vec_61, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.cast(buf12, target_type=pl.INT32, mode='round')
        if cond < 1:
            buf52: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src8, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
            buf53: pl.Tile[[8, 1], pl.FP32, pl.MemRef(mem_vec_62, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.row_sum(buf50, buf52)
            _s54: pl.Tensor[[8, 8], pl.INT32, pl.MemRef("mem_ddr_9", pl.const(0, pl.INT64), 256)] = pl.tile.store(buf51, [0, 0], dst9)
            _s55: pl.Tensor[[8, 1], pl.FP32, pl.MemRef("mem_ddr_10", pl.const(0, pl.INT64), 32)] = pl.tile.store(buf53, [0, 0], dst10)
        buf56: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.cast(buf3, target_type=pl.INT32, mode='floor')
        for i in pl.parallel(1):
            buf5_carry: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_63, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.move(buf5, target_memory=pl.Mem.Vec)
            for j_1, (it57,) in pl.parallel(4, init_values=(buf5_carry,)):
                buf58: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.div(it57, it57)
                buf59: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_63, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.sub(buf47, buf5)
                out60: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_63, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.yield_(buf59)
            buf61: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(src11, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        buf62: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.minimum(buf50, buf50)
        return pl.tile.store(buf62, [0, 0], dst12)
