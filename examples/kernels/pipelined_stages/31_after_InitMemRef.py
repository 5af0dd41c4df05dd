# pypto.program: PipelinedColScale
import pypto.language as pl

@pl.program
class PipelinedColScale:
    @pl.function(type=pl.FunctionType.AIV)
    def pipelined_col_scale(self, x: pl.Tensor[[2048, 512], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4194304)], gamma: pl.Tensor[[1, 512], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)], y: pl.Out[pl.Tensor[[2048, 512], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4194304)]]) -> pl.Tensor[[2048, 512], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        blk: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0: pl.Scalar[pl.INDEX] = blk * 16
        for c in pl.pipeline(0, 512, 128, stage=2):
            x_s0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [row0, c], [16, 64], [16, 64], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:0"})
            gamma_s0: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(gamma, [0, c], [1, 64], [1, 64], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:0"})
            y_s0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.col_expand_mul(x_s0, gamma_s0, attrs={"pipeline_membership": "0:0"})
            y_stored_s0: pl.Tensor[[2048, 512], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4194304)] = pl.tile.store(y_s0, [row0, c], y, attrs={"pipeline_membership": "0:0"})
            c_next: pl.Scalar[pl.INDEX] = c + 64
            x_s1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [row0, c_next], [16, 64], [16, 64], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:1"})
            gamma_s1: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(gamma, [0, c_next], [1, 64], [1, 64], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:1"})
            y_s1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.col_expand_mul(x_s1, gamma_s1, attrs={"pipeline_membership": "0:1"})
            y_stored_s1: pl.Tensor[[2048, 512], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4194304)] = pl.tile.store(y_s1, [row0, c_next], y, attrs={"pipeline_membership": "0:1"})
        return y
