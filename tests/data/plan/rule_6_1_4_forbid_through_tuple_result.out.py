# rule §6.1.4: a tuple-returning op parks its forbidden operands on the tuple and attaches them to
# every `x = tuple[k]`. tile.gather_compare is not in-place safe: dst = pair[0] and cdst = pair[1]
# (fresh MemRefs, InitMemRef rule 6) may take neither src's nor tmp's buffer, although both die at
# the gather_compare. Without the propagation dst would reuse src's mem_vec_4.
# memreuse-test: backend=950 step0=on
# expect: base dst mem_vec_6
# expect: base cdst mem_vec_7
# expect: distinct src tmp dst cdst
# expect: allocs Vec:1024 Vec:1024 Vec:1024 Vec:64
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, t: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], tmp_in: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)], out_0: pl.Out[pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)]], out_1: pl.Out[pl.Tensor[[1, 16], pl.INT32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 64)]]) -> pl.Tensor[[1, 16], pl.INT32]:
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        src: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(t, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        tmp: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(tmp_in, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, transpose=False)
        pair: pl.Tuple[pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec], pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec]] = pl.tile.gather_compare(src, pl.const(1.0, pl.FP32), tmp, cmp_mode='eq', out_cols=16)
        dst: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pair[0]
        cdst: pl.Tile[[1, 16], pl.INT32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 64), pl.Mem.Vec] = pair[1]
        d_store: pl.Tensor[[16, 16], pl.INT32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)] = pl.tile.store(dst, [0, 0], out_0)
        c_store: pl.Tensor[[1, 16], pl.INT32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 64)] = pl.tile.store(cdst, [0, 0], out_1)
        return c_store
