# rule §8, §9.3: two co-live 49152 B Vec tiles above a 131072 B reserve need 229376 B of the
# 188416 B Vec (910B). MemoryReuse falls back and warns (no pipeline group to shed); AllocateMemoryAddr
# rejects it and names the reserved window.
# memreuse-test: backend=910b step0=off addresses=on
# expect: error MR-E008 Vec buffer usage (229376 bytes) exceeds platform limit (188416 bytes). The first 131072 bytes of that space are reserved by system.reserve_buffer, so tiles are allocated above them
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x0: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 49152)], x1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 49152)], out: pl.Out[pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 49152)]]) -> pl.Tensor[[128, 96], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        pl.system.reserve_buffer(name="scratch", size=131072)
        t0: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x0, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Vec, transpose=False)
        t1: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Vec, transpose=False)
        t2: pl.Tile[[128, 96], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.add(t0, t1)
        out_1: pl.Tensor[[128, 96], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 49152)] = pl.tile.store(t2, [0, 0], out)
        return out_1
