# rule §11 #54 TestTopDownRetargeter::test_retargeter_declines_for_not_inplace_safe_op (§4.2
# rule e, §6.2 no-alias, §6.3): mrgsort may not write the buffer it reads, so Step 0 declines and
# merged_mv copies it onto the carry buffer. sort32 forbids its inputs and gather forbids result
# (on the carry buffer), so src_tile and vals join merged's mem_vec_6 (taking its 16384-byte
# MemRef); idx_tile keeps mem_vec_4.
# memreuse-test: backend=950 step0=on
# expect: same sorted_tile merged_mv result
# expect: base sorted_tile mem_vec_5
# expect: same merged src_tile vals
# expect: memref vals mem_vec_6 0 16384
# expect: base idx_tile mem_vec_4
# expect: allocs Vec:8192 Vec:16384 Vec:16384
# expect: moves merged_mv
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, src_tensor: pl.Tensor[[1, 2048], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], idx_tensor: pl.Tensor[[1, 2048], pl.UINT32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)], val_output: pl.Out[pl.Tensor[[1, 2048], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[1, 2048], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        src_tile: pl.Tile[[1, 2048], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(src_tensor, [0, 0], [1, 2048], [1, 2048], target_memory=pl.Mem.Vec, transpose=False)
        idx_tile: pl.Tile[[1, 2048], pl.UINT32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(idx_tensor, [0, 0], [1, 2048], [1, 2048], target_memory=pl.Mem.Vec, transpose=False)
        sorted_tile: pl.Tile[[1, 4096], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.sort32(src_tile, idx_tile)
        for i, (tile_iter,) in pl.range(3, init_values=(sorted_tile,)):
            block_len: pl.Scalar[pl.INDEX] = 1 << 6 + i * 2
            merged: pl.Tile[[1, 4096], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.mrgsort_format1(tile_iter, block_len=block_len)
            result: pl.Tile[[1, 4096], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.yield_(merged)
        vals: pl.Tile[[1, 2048], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.gather(result, mask_pattern=1)
        out_val: pl.Tensor[[1, 2048], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(vals, [0, 0], val_output)
        return out_val
