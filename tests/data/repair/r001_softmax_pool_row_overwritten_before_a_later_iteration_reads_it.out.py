# The softmax-pool function of tests/data/kept/v008_softmax_pool_reads_each_row_before_it_is_overwritten.py
# with the pool read backwards: iteration i reads row 6 - i. PyPTO still writes `t__tile_19`,
# `beta`, `t__tile_22` and `oi_next` over row 0 of the pools in iteration 0, and iteration 6
# reads row 0 afterwards: a value is lost, and the plan is repaired.
# memreuse-test: backend=910b step0=off
# expect: repairs MR-R001 MR-R001 MR-R001 MR-R001
# pypto.program: _jit_prefill_indexer_compressor_test
import pypto.language as pl

IDX_BLOCK_NUM_DYN = pl.dynamic("IDX_BLOCK_NUM_DYN")
STATE_BLOCK_NUM_DYN = pl.dynamic("STATE_BLOCK_NUM_DYN")
T_DYN = pl.dynamic("T_DYN")

@pl.program
class _jit_prefill_indexer_compressor_test:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def prefill_idx_c4_softmax_pool(write_dst_map_inline65_inline224__ssa_v1: pl.Tensor[[1, 128], pl.INT32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 512)], write_pos_map_inline50_inline273__ssa_v1: pl.Tensor[[1, 128], pl.INT32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)], inner_compress_state_block_table__ssa_v0: pl.Tensor[[8192], pl.INT32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 32768)], compress_state_flat_inline98_inline270__phi_v6: pl.Tensor[[state_block_num_inline61_inline259__ssa_v0 * pl.const(2, pl.INDEX), 512], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 0)], tile_rows_inline262__ssa_v0: pl.Scalar[pl.INDEX], tile_base_inline263__idx_v0: pl.Scalar[pl.INDEX], position_ids__ssa_v0: pl.Tensor[[T_DYN], pl.INT32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 0)], ape__ssa_v0: pl.Tensor[[4, 256], pl.FP32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 4096)], score_proj_scratch_inline150_inline328__phi_v6: pl.Tensor[[512, 256], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 524288)], kv_proj_scratch_inline83_inline267__phi_v6: pl.Tensor[[512, 256], pl.FP32, pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 524288)], pooled_kv_inline89_inline257__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 65536)]]) -> tuple[pl.Scalar[pl.INT32], pl.Tensor[[128, 128], pl.FP32]]:
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_28: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_45: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_46: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_49: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_51: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_52: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_53: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_56: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_57: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        pool_idx_inline123_inline315__ssa_v0: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        write_i_inline126_inline272__ssa_v0: pl.Scalar[pl.INDEX] = pool_idx_inline123_inline315__ssa_v0
        hb_inline128_inline316__ssa_v0: pl.Scalar[pl.INDEX] = pool_idx_inline123_inline315__ssa_v0 - write_i_inline126_inline272__ssa_v0
        h0_inline129_inline319__ssa_v0: pl.Scalar[pl.INDEX] = hb_inline128_inline316__ssa_v0 * 128
        pool_kv_tile_inline130_inline268__tile: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.create([8, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        pool_score_tile_inline131_inline322__tile: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.create([8, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        write_slot_raw_inline132_inline326__tile: pl.Scalar[pl.INT32] = pl.tensor.read(write_dst_map_inline65_inline224__ssa_v1, [0, write_i_inline126_inline272__ssa_v0])
        if 0 <= pl.cast(write_slot_raw_inline132_inline326__tile, pl.INDEX):
            write_pos_inline133_inline330__tile: pl.Scalar[pl.INT32] = pl.tensor.read(write_pos_map_inline50_inline273__ssa_v1, [0, write_i_inline126_inline272__ssa_v0])
            cur_start_inline86_inline282__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(write_pos_inline133_inline330__tile, pl.INDEX) + -3
            prev_start_inline134_inline331__ssa_v0: pl.Scalar[pl.INDEX] = cur_start_inline86_inline282__ssa_v0 - 4
            for pool_s_inline119_inline325__idx_v0, (pool_kv_tile_inline130_inline268__iter_v1, pool_score_tile_inline131_inline322__iter_v1) in pl.range(4, init_values=(pool_kv_tile_inline130_inline268__tile, pool_score_tile_inline131_inline322__tile)):
                prev_abs_inline158_inline333__ssa_v0: pl.Scalar[pl.INDEX] = prev_start_inline134_inline331__ssa_v0 + pool_s_inline119_inline325__idx_v0
                front_slot_inline103_inline334__ssa_v0: pl.Scalar[pl.INDEX] = pool_s_inline119_inline325__idx_v0
                t__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.full([1, 128], dtype=pl.FP32, value=0.0)
                pool_kv_tile_inline130_inline268__tile_1: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_kv_tile_inline130_inline268__iter_v1, t__tile, [front_slot_inline103_inline334__ssa_v0, 0])
                t__tile_1: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.full([1, 128], dtype=pl.FP32, value=-3.4028234663852886e+38)
                pool_score_tile_inline131_inline322__tile_1: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_score_tile_inline131_inline322__iter_v1, t__tile_1, [front_slot_inline103_inline334__ssa_v0, 0])
                if 7 <= pl.cast(write_pos_inline133_inline330__tile, pl.INDEX):
                    prev_state_block_inline138_inline337__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(prev_abs_inline158_inline333__ssa_v0 // 2, pl.INDEX)
                    prev_state_intra_inline124_inline340__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(prev_abs_inline158_inline333__ssa_v0 - prev_state_block_inline138_inline337__ssa_v0 * 2, pl.INDEX)
                    prev_phys_block_raw_inline139_inline250__tile: pl.Scalar[pl.INT32] = pl.tensor.read(inner_compress_state_block_table__ssa_v0, [prev_state_block_inline138_inline337__ssa_v0])
                    if 0 <= pl.cast(prev_phys_block_raw_inline139_inline250__tile, pl.INDEX):
                        prev_phys_block_inline141_inline295__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(prev_phys_block_raw_inline139_inline250__tile, pl.INDEX)
                        prev_state_row_inline46_inline288__ssa_v0: pl.Scalar[pl.INDEX] = prev_phys_block_inline141_inline295__ssa_v0 * 2 + prev_state_intra_inline124_inline340__ssa_v0
                        t__tile_2: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(compress_state_flat_inline98_inline270__phi_v6, [prev_state_row_inline46_inline288__ssa_v0, h0_inline129_inline319__ssa_v0], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                        pool_kv_tile_inline130_inline268__tile_2: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_kv_tile_inline130_inline268__tile_1, t__tile_2, [front_slot_inline103_inline334__ssa_v0, 0])
                        t__tile_3: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(compress_state_flat_inline98_inline270__phi_v6, [prev_state_row_inline46_inline288__ssa_v0, h0_inline129_inline319__ssa_v0 + 256], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                        pool_score_tile_inline131_inline322__tile_2: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_score_tile_inline131_inline322__tile_1, t__tile_3, [front_slot_inline103_inline334__ssa_v0, 0])
                        pool_kv_tile_inline130_inline268__phi_v5, pool_score_tile_inline131_inline322__phi_v5 = pl.yield_(pool_kv_tile_inline130_inline268__tile_2, pool_score_tile_inline131_inline322__tile_2)
                    else:
                        pool_kv_tile_inline130_inline268__phi_v5, pool_score_tile_inline131_inline322__phi_v5 = pl.yield_(pool_kv_tile_inline130_inline268__tile_1, pool_score_tile_inline131_inline322__tile_1)
                    pool_kv_tile_inline130_inline268__phi_v6, pool_score_tile_inline131_inline322__phi_v6 = pl.yield_(pool_kv_tile_inline130_inline268__phi_v5, pool_score_tile_inline131_inline322__phi_v5)
                else:
                    pool_kv_tile_inline130_inline268__phi_v6, pool_score_tile_inline131_inline322__phi_v6 = pl.yield_(pool_kv_tile_inline130_inline268__tile_1, pool_score_tile_inline131_inline322__tile_1)
                cur_abs_inline143_inline304__ssa_v0: pl.Scalar[pl.INDEX] = cur_start_inline86_inline282__ssa_v0 + pool_s_inline119_inline325__idx_v0
                back_slot_inline146_inline309__ssa_v0: pl.Scalar[pl.INDEX] = pool_s_inline119_inline325__idx_v0 + 4
                t__tile_4: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.full([1, 128], dtype=pl.FP32, value=0.0)
                pool_kv_tile_inline130_inline268__tile_3: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_kv_tile_inline130_inline268__phi_v6, t__tile_4, [back_slot_inline146_inline309__ssa_v0, 0])
                t__tile_5: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.full([1, 128], dtype=pl.FP32, value=-3.4028234663852886e+38)
                pool_score_tile_inline131_inline322__tile_3: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_score_tile_inline131_inline322__phi_v6, t__tile_5, [back_slot_inline146_inline309__ssa_v0, 0])
                cur_state_block_inline140_inline290__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(cur_abs_inline143_inline304__ssa_v0 // 2, pl.INDEX)
                cur_state_intra_inline148_inline265__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(cur_abs_inline143_inline304__ssa_v0 - cur_state_block_inline140_inline290__ssa_v0 * 2, pl.INDEX)
                cur_phys_block_raw_inline149_inline324__tile: pl.Scalar[pl.INT32] = pl.tensor.read(inner_compress_state_block_table__ssa_v0, [cur_state_block_inline140_inline290__ssa_v0])
                if 0 <= pl.cast(cur_phys_block_raw_inline149_inline324__tile, pl.INDEX):
                    cur_phys_block_inline154_inline341__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(cur_phys_block_raw_inline149_inline324__tile, pl.INDEX)
                    cur_state_row_inline135_inline283__ssa_v0: pl.Scalar[pl.INDEX] = cur_phys_block_inline154_inline341__ssa_v0 * 2 + cur_state_intra_inline148_inline265__ssa_v0
                    t__tile_6: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(compress_state_flat_inline98_inline270__phi_v6, [cur_state_row_inline135_inline283__ssa_v0, h0_inline129_inline319__ssa_v0 + 128], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                    pool_kv_tile_inline130_inline268__tile_4: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_kv_tile_inline130_inline268__tile_3, t__tile_6, [back_slot_inline146_inline309__ssa_v0, 0])
                    t__tile_7: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(compress_state_flat_inline98_inline270__phi_v6, [cur_state_row_inline135_inline283__ssa_v0, h0_inline129_inline319__ssa_v0 + 384], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                    pool_score_tile_inline131_inline322__tile_4: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_score_tile_inline131_inline322__tile_3, t__tile_7, [back_slot_inline146_inline309__ssa_v0, 0])
                    pool_kv_tile_inline130_inline268__phi_v9, pool_score_tile_inline131_inline322__phi_v9 = pl.yield_(pool_kv_tile_inline130_inline268__tile_4, pool_score_tile_inline131_inline322__tile_4)
                else:
                    pool_kv_tile_inline130_inline268__phi_v9, pool_score_tile_inline131_inline322__phi_v9 = pl.yield_(pool_kv_tile_inline130_inline268__tile_3, pool_score_tile_inline131_inline322__tile_3)
                pool_kv_tile_inline130_inline268__rv_v2, pool_score_tile_inline131_inline322__rv_v2 = pl.yield_(pool_kv_tile_inline130_inline268__phi_v9, pool_score_tile_inline131_inline322__phi_v9)
            for pool_local_inline155_inline343__idx_v0, (pool_kv_tile_inline130_inline268__iter_v10, pool_score_tile_inline131_inline322__iter_v10) in pl.range(tile_rows_inline262__ssa_v0, init_values=(pool_kv_tile_inline130_inline268__rv_v2, pool_score_tile_inline131_inline322__rv_v2)):
                pool_global_inline101_inline344__ssa_v0: pl.Scalar[pl.INDEX] = tile_base_inline263__idx_v0 + pool_local_inline155_inline343__idx_v0
                pool_pos_inline157_inline347__tile: pl.Scalar[pl.INT32] = pl.tensor.read(position_ids__ssa_v0, [pool_global_inline101_inline344__ssa_v0])
                if pool_pos_inline157_inline347__tile <= write_pos_inline133_inline330__tile:
                    if prev_start_inline134_inline331__ssa_v0 <= pl.cast(pool_pos_inline157_inline347__tile, pl.INDEX):
                        pool_ape_slot_inline142_inline254__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(pl.cast(pool_pos_inline157_inline347__tile, pl.INDEX) % 4, pl.INDEX)
                        if pl.cast(pool_pos_inline157_inline347__tile, pl.INDEX) < cur_start_inline86_inline282__ssa_v0:
                            pool_slot_inline161_inline278__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(pl.cast(pool_pos_inline157_inline347__tile, pl.INDEX) - prev_start_inline134_inline331__ssa_v0, pl.INDEX)
                            pool_ape_inline162_inline335__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(ape__ssa_v0, [pool_ape_slot_inline142_inline254__ssa_v0, h0_inline129_inline319__ssa_v0], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                            t__tile_8: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(score_proj_scratch_inline150_inline328__phi_v6, [pool_local_inline155_inline343__idx_v0, h0_inline129_inline319__ssa_v0], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                            pool_score_inline164_inline298__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(t__tile_8, pool_ape_inline162_inline335__tile)
                            t__tile_9: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(kv_proj_scratch_inline83_inline267__phi_v6, [pool_local_inline155_inline343__idx_v0, h0_inline129_inline319__ssa_v0], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                            pool_kv_tile_inline130_inline268__tile_5: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_kv_tile_inline130_inline268__iter_v10, t__tile_9, [pool_slot_inline161_inline278__ssa_v0, 0])
                            pool_score_tile_inline131_inline322__tile_5: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_score_tile_inline131_inline322__iter_v10, pool_score_inline164_inline298__tile, [pool_slot_inline161_inline278__ssa_v0, 0])
                            pool_kv_tile_inline130_inline268__phi_v14, pool_score_tile_inline131_inline322__phi_v14 = pl.yield_(pool_kv_tile_inline130_inline268__tile_5, pool_score_tile_inline131_inline322__tile_5)
                        else:
                            pool_slot_inline161_inline278__ssa_v1: pl.Scalar[pl.INDEX] = pl.cast(pl.cast(pool_pos_inline157_inline347__tile, pl.INDEX) - cur_start_inline86_inline282__ssa_v0 + 4, pl.INDEX)
                            pool_ape_inline162_inline335__tile_1: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(ape__ssa_v0, [pool_ape_slot_inline142_inline254__ssa_v0, h0_inline129_inline319__ssa_v0 + 128], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                            t__tile_10: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(score_proj_scratch_inline150_inline328__phi_v6, [pool_local_inline155_inline343__idx_v0, h0_inline129_inline319__ssa_v0 + 128], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                            pool_score_inline164_inline298__tile_1: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(t__tile_10, pool_ape_inline162_inline335__tile_1)
                            t__tile_11: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(kv_proj_scratch_inline83_inline267__phi_v6, [pool_local_inline155_inline343__idx_v0, h0_inline129_inline319__ssa_v0 + 128], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
                            pool_kv_tile_inline130_inline268__tile_6: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_kv_tile_inline130_inline268__iter_v10, t__tile_11, [pool_slot_inline161_inline278__ssa_v1, 0])
                            pool_score_tile_inline131_inline322__tile_6: pl.Tile[[8, 128], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(pool_score_tile_inline131_inline322__iter_v10, pool_score_inline164_inline298__tile_1, [pool_slot_inline161_inline278__ssa_v1, 0])
                            pool_kv_tile_inline130_inline268__phi_v14, pool_score_tile_inline131_inline322__phi_v14 = pl.yield_(pool_kv_tile_inline130_inline268__tile_6, pool_score_tile_inline131_inline322__tile_6)
                        pool_kv_tile_inline130_inline268__phi_v15, pool_score_tile_inline131_inline322__phi_v15 = pl.yield_(pool_kv_tile_inline130_inline268__phi_v14, pool_score_tile_inline131_inline322__phi_v14)
                    else:
                        pool_kv_tile_inline130_inline268__phi_v15, pool_score_tile_inline131_inline322__phi_v15 = pl.yield_(pool_kv_tile_inline130_inline268__iter_v10, pool_score_tile_inline131_inline322__iter_v10)
                    pool_kv_tile_inline130_inline268__phi_v16, pool_score_tile_inline131_inline322__phi_v16 = pl.yield_(pool_kv_tile_inline130_inline268__phi_v15, pool_score_tile_inline131_inline322__phi_v15)
                else:
                    pool_kv_tile_inline130_inline268__phi_v16, pool_score_tile_inline131_inline322__phi_v16 = pl.yield_(pool_kv_tile_inline130_inline268__iter_v10, pool_score_tile_inline131_inline322__iter_v10)
                pool_kv_tile_inline130_inline268__rv_v11, pool_score_tile_inline131_inline322__rv_v11 = pl.yield_(pool_kv_tile_inline130_inline268__phi_v16, pool_score_tile_inline131_inline322__phi_v16)
            init_slot_inline159_inline348__ssa_v0: pl.Scalar[pl.INDEX] = 7
            mi_buf_inline168_inline301__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.create([1, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            li_buf_inline165_inline222__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.create([1, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            oi_buf_inline170_inline350__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.create([1, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            t__tile_12: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_10, init_slot_inline159_inline348__ssa_v0 * 128 * 4, 512), pl.Mem.Vec] = pl.tile.slice(pool_score_tile_inline131_inline322__rv_v11, [1, 128], [init_slot_inline159_inline348__ssa_v0, 0])
            mi_buf_inline168_inline301__tile_1: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.assemble(mi_buf_inline168_inline301__tile, t__tile_12, [0, 0])
            t__tile_13: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.slice(mi_buf_inline168_inline301__tile_1, [1, 128], [0, 0])
            t__tile_14: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.slice(mi_buf_inline168_inline301__tile_1, [1, 128], [0, 0])
            t__tile_15: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.sub(t__tile_13, t__tile_14)
            t__tile_16: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.exp(t__tile_15)
            li_buf_inline165_inline222__tile_1: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.assemble(li_buf_inline165_inline222__tile, t__tile_16, [0, 0])
            t__tile_17: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_9, init_slot_inline159_inline348__ssa_v0 * 128 * 4, 512), pl.Mem.Vec] = pl.tile.slice(pool_kv_tile_inline130_inline268__rv_v11, [1, 128], [init_slot_inline159_inline348__ssa_v0, 0])
            oi_buf_inline170_inline350__tile_1: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.assemble(oi_buf_inline170_inline350__tile, t__tile_17, [0, 0])
            for pool_slot_i_inline63_inline351__idx_v0, (li_buf_inline165_inline222__iter_v2, mi_buf_inline168_inline301__iter_v2, oi_buf_inline170_inline350__iter_v2) in pl.range(7, init_values=(li_buf_inline165_inline222__tile_1, mi_buf_inline168_inline301__tile_1, oi_buf_inline170_inline350__tile_1)):
                pool_row: pl.Scalar[pl.INDEX] = 6 - pool_slot_i_inline63_inline351__idx_v0
                if 4 <= pool_slot_i_inline63_inline351__idx_v0 or 7 <= pl.cast(write_pos_inline133_inline330__tile, pl.INDEX):
                    mi_inline169_inline354__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.slice(mi_buf_inline168_inline301__iter_v2, [1, 128], [0, 0])
                    li_inline145_inline236__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.slice(li_buf_inline165_inline222__iter_v2, [1, 128], [0, 0])
                    oi_inline112_inline355__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.slice(oi_buf_inline170_inline350__iter_v2, [1, 128], [0, 0])
                    slot_score_inline171_inline357__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_10, pool_row * 128 * 4, 512), pl.Mem.Vec] = pl.tile.slice(pool_score_tile_inline131_inline322__rv_v11, [1, 128], [pool_row, 0])
                    slot_kv_inline172_inline218__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_9, pool_row * 128 * 4, 512), pl.Mem.Vec] = pl.tile.slice(pool_kv_tile_inline130_inline268__rv_v11, [1, 128], [pool_row, 0])
                    mi_next_inline68_inline358__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_46, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.maximum(mi_inline169_inline354__tile, slot_score_inline171_inline357__tile)
                    t__tile_18: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_49, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.sub(mi_inline169_inline354__tile, mi_next_inline68_inline358__tile)
                    alpha_inline107_inline359__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_49, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.exp(t__tile_18)
                    t__tile_19: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_51, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.sub(slot_score_inline171_inline357__tile, mi_next_inline68_inline358__tile)
                    beta_inline58_inline360__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_52, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.exp(t__tile_19)
                    t__tile_20: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_53, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.mul(alpha_inline107_inline359__tile, li_inline145_inline236__tile)
                    li_next_inline117_inline321__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_53, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(t__tile_20, beta_inline58_inline360__tile)
                    t__tile_21: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_49, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.mul(oi_inline112_inline355__tile, alpha_inline107_inline359__tile)
                    t__tile_22: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_56, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.mul(slot_kv_inline172_inline218__tile, beta_inline58_inline360__tile)
                    oi_next_inline120_inline329__tile: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_57, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(t__tile_21, t__tile_22)
                    mi_buf_inline168_inline301__tile_2: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_11, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.assemble(mi_buf_inline168_inline301__iter_v2, mi_next_inline68_inline358__tile, [0, 0])
                    li_buf_inline165_inline222__tile_2: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.assemble(li_buf_inline165_inline222__iter_v2, li_next_inline117_inline321__tile, [0, 0])
                    oi_buf_inline170_inline350__tile_2: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.assemble(oi_buf_inline170_inline350__iter_v2, oi_next_inline120_inline329__tile, [0, 0])
                    li_buf_inline165_inline222__phi_v5, mi_buf_inline168_inline301__phi_v5, oi_buf_inline170_inline350__phi_v5 = pl.yield_(li_buf_inline165_inline222__tile_2, mi_buf_inline168_inline301__tile_2, oi_buf_inline170_inline350__tile_2)
                else:
                    li_buf_inline165_inline222__phi_v5, mi_buf_inline168_inline301__phi_v5, oi_buf_inline170_inline350__phi_v5 = pl.yield_(li_buf_inline165_inline222__iter_v2, mi_buf_inline168_inline301__iter_v2, oi_buf_inline170_inline350__iter_v2)
                li_buf_inline165_inline222__rv_v3, mi_buf_inline168_inline301__rv_v3, oi_buf_inline170_inline350__rv_v3 = pl.yield_(li_buf_inline165_inline222__phi_v5, mi_buf_inline168_inline301__phi_v5, oi_buf_inline170_inline350__phi_v5)
            t__tile_23: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_45, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.slice(oi_buf_inline170_inline350__rv_v3, [1, 128], [0, 0])
            t__tile_24: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_28, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.slice(li_buf_inline165_inline222__rv_v3, [1, 128], [0, 0])
            t__tile_25: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.div(t__tile_23, t__tile_24)
            pooled_kv_inline89_inline257__tile: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 65536)] = pl.tile.store(t__tile_25, [write_i_inline126_inline272__ssa_v0, h0_inline129_inline319__ssa_v0], pooled_kv_inline89_inline257__ssa_v0)
            pooled_kv_inline89_inline257__phi_v3: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_66", pl.const(0, pl.INT64), 65536)] = pl.yield_(pooled_kv_inline89_inline257__tile)
        else:
            t__tile_26: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_9, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.full([1, 128], dtype=pl.FP32, value=0.0)
            pooled_kv_inline89_inline257__tile_1: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_8", pl.const(0, pl.INT64), 65536)] = pl.tile.store(t__tile_26, [write_i_inline126_inline272__ssa_v0, h0_inline129_inline319__ssa_v0], pooled_kv_inline89_inline257__ssa_v0)
            pooled_kv_inline89_inline257__phi_v3: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_66", pl.const(0, pl.INT64), 65536)] = pl.yield_(pooled_kv_inline89_inline257__tile_1)
        return write_slot_raw_inline132_inline326__tile, pooled_kv_inline89_inline257__phi_v3
## repairs
r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:160:193: warning[MR-R001]: PyPTO puts 't__tile_19' on 'mem_vec_10', the buffer of 'slot_score_inline171_inline357__tile', which is unsafe: 'slot_score_inline171_inline357__tile' is read here, but its bytes [0, 512) of 'mem_vec_10' were overwritten by 't__tile_19'; the repaired plan keeps 't__tile_19' on its own allocation 'mem_vec_51'
  r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:158:21: note: 'slot_score_inline171_inline357__tile' is defined here
  r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:163:21: note: 't__tile_19' is written over 'slot_score_inline171_inline357__tile' here
r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:160:193: warning[MR-R001]: PyPTO puts 'beta_inline58_inline360__tile' on 'mem_vec_10', the buffer of 'slot_score_inline171_inline357__tile', which is unsafe: 'slot_score_inline171_inline357__tile' is read here, but its bytes [0, 512) of 'mem_vec_10' were overwritten by 'beta_inline58_inline360__tile'; the repaired plan keeps 'beta_inline58_inline360__tile' on its own allocation 'mem_vec_52'
  r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:158:21: note: 'slot_score_inline171_inline357__tile' is defined here
  r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:164:21: note: 'beta_inline58_inline360__tile' is written over 'slot_score_inline171_inline357__tile' here
r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:168:21: warning[MR-R001]: PyPTO puts 't__tile_22' on 'mem_vec_9', the buffer of 'pool_kv_tile_inline130_inline268__rv_v11', which is unsafe: tiles 'pool_kv_tile_inline130_inline268__rv_v11' and 't__tile_22' share bytes of 'mem_vec_9' while both are live: 't__tile_22' (bytes [0, 4096)) is written here, and 'pool_kv_tile_inline130_inline268__rv_v11' (bytes [0, 4096)) is read again after it; the repaired plan keeps 't__tile_22' on its own allocation 'mem_vec_56'
  r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:138:17: note: 'pool_kv_tile_inline130_inline268__rv_v11' is defined here
  r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:159:21: note: 'pool_kv_tile_inline130_inline268__rv_v11' is read here after 't__tile_22' is written
r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:168:137: warning[MR-R001]: PyPTO puts 'oi_next_inline120_inline329__tile' on 'mem_vec_9', the buffer of 'slot_kv_inline172_inline218__tile', which is unsafe: 'slot_kv_inline172_inline218__tile' is read here, but its bytes [0, 512) of 'mem_vec_9' were overwritten by 'oi_next_inline120_inline329__tile'; the repaired plan keeps 'oi_next_inline120_inline329__tile' on its own allocation 'mem_vec_57'
  r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:159:21: note: 'slot_kv_inline172_inline218__tile' is defined here
  r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py:169:21: note: 'oi_next_inline120_inline329__tile' is written over 'slot_kv_inline172_inline218__tile' here
