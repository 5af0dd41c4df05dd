# pypto.program: PrinterForms
import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class PrinterForms:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.CORE)
    def kernel(self, x: pl.Tensor[[N, 64], pl.FP16, pl.MemRef("mem_ddr_0", 0, 0)], y: pl.InOut[pl.Tensor[[16, 64], pl.FP16, pl.MemRef("mem_ddr_1", 0, 2048)]], n: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[16, 64], pl.FP16, pl.MemRef("mem_ddr_1", 0, 2048)], pl.Scalar[pl.INDEX]]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, pinned=True)
        pl.reserve_buffer(name='scratch', size=4096)
        a: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        b: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_vec_2, 2048, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, 64], pad=pl.PadValue.max)] = pl.tile.muls(a, -1.5)
        for i, (acc, prev) in pl.pipeline(0, n, 2, stage=2, init_values=(a, b)):
            with pl.scope():
                c: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.add(acc, prev, attrs={"pipeline_membership": "0:1"})
            acc_out, prev_out = pl.yield_(c, acc)
        k: pl.Scalar[pl.INDEX] = -(n - 1) * 2 ** (-i) // 3
        if not k >= 0 and n != 4:
            pl.yield_()
        for j in pl.range(4):
            pass
        out: pl.Tensor[[16, 64], pl.FP16, pl.MemRef("mem_ddr_1", 0, 2048)] = pl.tile.store(acc_out, [0, 0], y)
        return out, k

    @pl.function(role=pl.Role.SubWorker)
    def helper(t: pl.Tile[[4], pl.INT8, pl.MemRef("pinned", slots=2)[0], pl.Mem.Vec]):
        return
