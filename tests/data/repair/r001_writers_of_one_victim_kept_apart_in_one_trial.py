# Repair MR-R001, a victim's writers kept apart in one trial: PyPTO packs four tiles onto
# the buffer of 'phi_6', an `if` result whose lifetime it ends before the second `if` reads
# it. Each keeps its own allocation, as one round each would keep them: 'row_expand_sub_12'
# in a round of its own (the `then` arm reads 'phi_6' after it), then 'ld_15' and 'add_16' in
# one trial, which finds the pair of 'un_17' first as its round would, and 'un_17' in a round
# of its own (the repair's module doc, "One victim's writers"). From a random program of
# tests/random_programs_get_safe_plans.rs.
# memreuse-test: backend=910b step0=off
# expect: repairs MR-R001 MR-R001 MR-R001 MR-R001
import pypto.language as pl

@pl.program
class OneVictimsWriters:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_1(self, x_f32: pl.Tensor[[4096, 256], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4194304)], x_f16: pl.Tensor[[4096, 256], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2097152)], y_out: pl.Out[pl.Tensor[[4096, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4194304)]], flag: pl.Scalar[pl.INT64]) -> pl.Tensor[[4096, 256], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_12: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_13: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_14: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_15: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_16: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_17: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_18: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_19: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_21: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        pl.system.reserve_buffer(name='scratch', size=4096)
        ld_1: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x_f32, [288, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        with pl.scope():
            ld_2: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x_f16, [3808, 64], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
            if flag > 0:
                minimum_3: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.minimum(ld_2, ld_2)
                maximum_4: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.maximum(minimum_3, ld_2)
                un_5: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.adds(maximum_4, 1.0)
                phi_6: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(ld_1)
            else:
                add_7: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(ld_1, ld_1)
                add_8: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(add_7, ld_1)
                phi_6: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(ld_1)
            mul_9: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.mul(ld_1, phi_6)
            if flag > 0:
                tmp_10: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_12, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.create([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                row_max_11: pl.Tile[[32, 1], pl.FP32, pl.MemRef(mem_vec_13, pl.const(0, pl.INT64), 128), pl.Mem.Vec] = pl.tile.row_max(ld_1, tmp_10)
                row_expand_sub_12: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_14, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.row_expand_sub(ld_1, row_max_11)
                un_13: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(phi_6)
                phi_14: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(un_13)
            else:
                ld_15: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_16, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x_f32, [3136, 64], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
                add_16: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_17, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(ld_15, ld_15)
                un_17: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_18, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.relu(phi_6)
                pad_18: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_18, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.fillpad_inplace(un_17, pad_value=pl.PadValue.min)
                un_19: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_19, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.abs(phi_6)
                phi_14: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_15, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(un_19)
        cast_20: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_21, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.cast(ld_2, target_type=pl.FP32, mode='round')
        st_21: pl.Tensor[[4096, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4194304)] = pl.tile.store(cast_20, [3136, 0], y_out)
        return st_21
