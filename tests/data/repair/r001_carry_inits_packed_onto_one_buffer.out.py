# Repair MR-R001 after packing: 'seed_26' and 'phi_20' start loop carries 'carry_28' and
# 'carry_29'; the input gives them buffers of their own, but PyPTO's packer puts both on one,
# so the yield fixup would write one carry over the other (the seed's S2 refuses it, MR-E006):
# 'seed_26' keeps its own allocation. The if result and the carry seeded from 'phi_20' then
# need their own too (MR-R005, MR-R002). A program of memreuse_testgen::synth (seed 1765,
# the upstream hazard shapes) with Step 0 on.
# memreuse-test: backend=none step0=on
# expect: repairs MR-R001 MR-R005 MR-R002
import pypto.language as pl

@pl.program
class CarryInitsPackedOntoOneBuffer:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_0(self, x_f32: pl.Tensor[[4096, 256], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4194304)], x_f16: pl.Tensor[[4096, 256], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2097152)], y_out: pl.Out[pl.Tensor[[4096, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4194304)]], flag: pl.Scalar[pl.INT64]) -> pl.Tensor[[4096, 256], pl.FP32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_22: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_23: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_40: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_45: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_46: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        pl.system.reserve_buffer(name='scratch', size=4096)
        ld_1: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(x_f16, [256, 128], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        minimum_2: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.minimum(ld_1, ld_1)
        cast_3: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.cast(ld_1, target_type=pl.FP32, mode='round')
        st_4: pl.Tensor[[4096, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4194304)] = pl.tile.store(cast_3, [2688, 64], y_out)
        maximum_5: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(minimum_2, ld_1)
        cast_6: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.cast(minimum_2, target_type=pl.FP32, mode='round')
        pair_7: pl.Tuple[pl.Tile[[32, 16], pl.INT32, pl.Mem.Vec], pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec]] = pl.tile.gather_compare(cast_6, pl.const(1.0, pl.FP32), cast_3, cmp_mode='eq', out_cols=16)
        dst_8: pl.Tile[[32, 16], pl.INT32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pair_7[0]
        cdst_9: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pair_7[1]
        un_10: pl.Tile[[32, 16], pl.INT32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.adds(dst_8, 1)
        un_11: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.adds(cdst_9, 1)
        minimum_12: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.minimum(un_11, cdst_9)
        view_13: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, 0, 128), pl.Mem.Vec] = pl.tile.reinterpret_view(un_11, dtype=pl.FP32)
        if flag > 0:
            view_14: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, 0, 128), pl.Mem.Vec] = pl.tile.reinterpret_view(un_11, dtype=pl.FP32)
            tmp_15: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            row_max_16: pl.Tile[[1, 1], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.row_max(view_14, tmp_15)
            row_expand_sub_17: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.row_expand_sub(view_14, row_max_16)
            s_18: pl.Scalar[pl.FP32] = pl.tile.read(row_max_16, [0, 0])
            muls_19: pl.Tile[[1, 1], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.muls(row_max_16, s_18)
            pl.tile.write(muls_19, [0, 0], s_18)
            view_13_phi: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.move(view_13, target_memory=pl.Mem.Vec)
            phi_20: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.yield_(view_13_phi)
        else:
            with pl.scope():
                maximum_21: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.maximum(un_11, minimum_12)
            mul_22: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.mul(minimum_12, maximum_21)
            maximum_23: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(view_13, view_13)
            un_24: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.abs(view_13)
            un_24_mv: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.move(un_24, target_memory=pl.Mem.Vec)
            phi_20: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.yield_(un_24_mv)
        st_25: pl.Tensor[[4096, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4194304)] = pl.tile.store(view_13, [1564, 224], st_4)
        seed_26: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.full([1, 32], dtype=pl.INT32, value=0)
        phi_20_carry: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.move(phi_20, target_memory=pl.Mem.Vec)
        for i_27, (carry_28, carry_29) in pl.range(2, init_values=(seed_26, phi_20_carry)):
            sub_30: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.sub(carry_29, phi_20)
            for j_31, (carry_32,) in pl.range(2, init_values=(carry_28,)):
                add_33: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_23, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.add(carry_32, carry_32)
                un_34: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.adds(carry_32, 1)
                out_35: pl.Tile[[1, 32], pl.INT32, pl.MemRef(mem_vec_22, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.yield_(un_34)
            add_36: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.add(carry_29, phi_20)
            out_37, out_38 = pl.yield_(out_35, add_36)
        minimum_39: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.minimum(out_38, phi_20)
        mul_40: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.mul(minimum_39, out_38)
        maximum_41: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.maximum(out_38, mul_40)
        maximum_42: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.maximum(minimum_39, maximum_41)
        with pl.scope():
            if flag > 0:
                minimum_43: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.minimum(maximum_42, maximum_41)
                mul_44: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.mul(maximum_41, minimum_43)
                un_45: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.neg(maximum_41)
                phi_46: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(un_45)
            else:
                sub_47: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.sub(maximum_42, maximum_41)
                alias_48: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 128), pl.Mem.Vec] = maximum_42
                un_49: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.relu(maximum_41)
                phi_46: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(un_49)
            ld_50: pl.Tile[[64, 128], pl.FP16, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x_f16, [3200, 128], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
            tmp_51: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            row_sum_52: pl.Tile[[1, 1], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.row_sum(maximum_42, tmp_51)
            row_expand_div_53: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.row_expand_div(maximum_42, row_sum_52)
            with pl.scope():
                ld_54: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_40, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x_f32, [4080, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        st_55: pl.Tensor[[4096, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4194304)] = pl.tile.store(row_sum_52, [3610, 121], st_25)
        return st_55
## repairs
r001_carry_inits_packed_onto_one_buffer.py:84:30: warning[MR-R001]: PyPTO's packing puts 'seed_26', the init of loop carry 'carry_28', on the buffer of another carry's init, so their writebacks overwrite each other (MR-E006: loop carries 'carry_28' and 'carry_29' start on overlapping buffers ('mem_vec_40'), so no order of their writebacks keeps both values); the repaired plan keeps 'seed_26' on its own allocation 'mem_vec_22'
r001_carry_inits_packed_onto_one_buffer.py:80:13: warning[MR-R005]: once the repairs before this one are made, if result 'phi_20' sits on 'mem_vec_40', the buffer of the value its then arm yields 'view_13', which is unsafe: tiles 'view_13' and 'un_24_mv' (a copy memreuse inserted for 'un_24') share bytes of 'mem_vec_40' while both are live: 'un_24_mv' (bytes [0, 128)) is written here, and 'view_13' (bytes [0, 128)) is read again after it; the repaired plan feeds it from 'view_13_phi', a copy of 'view_13' in its own allocation 'mem_vec_45'
  r001_carry_inits_packed_onto_one_buffer.py:65:9: note: 'view_13' is defined here
  r001_carry_inits_packed_onto_one_buffer.py:82:9: note: 'view_13' is read here after 'un_24_mv' (a copy memreuse inserted for 'un_24') is written
r001_carry_inits_packed_onto_one_buffer.py:85:134: warning[MR-R002]: once the repairs before this one are made, loop carry 'carry_29' sits on 'mem_vec_40', the buffer of its init value 'phi_20', which is unsafe: 'phi_20' is read here, but its bytes [0, 128) of 'mem_vec_40' were overwritten by 'add_36_mv' (a copy memreuse inserted for 'add_36'); the repaired plan feeds it from 'phi_20_carry', a copy of 'phi_20' in its own allocation 'mem_vec_46'
  r001_carry_inits_packed_onto_one_buffer.py:74:13: note: 'phi_20' is defined here
  r001_carry_inits_packed_onto_one_buffer.py:90:13: note: 'add_36_mv' (a copy memreuse inserted for 'add_36') is written over 'phi_20' here
