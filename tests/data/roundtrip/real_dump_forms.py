# pypto.program: RealDumpForms
import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class RealDumpForms:
    @pl.function(type=pl.FunctionType.InCore)
    def loop_kernel(self, x__ssa_v0: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec, transpose=False)
        c__ssa_v0: pl.Scalar[pl.INDEX] = 0
        # A while loop: the condition is the first statement of its body.
        for (c__iter_v1, w__iter_v1) in pl.while_(init_values=(c__ssa_v0, t__ssa_v0)):
            pl.cond(c__iter_v1 < 4)
            w__ssa_v2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(w__iter_v1, w__iter_v1)
            c__ssa_v2: pl.Scalar[pl.INDEX] = c__iter_v1 + 1
            c__rv_v3, w__rv_v3 = pl.yield_(c__ssa_v2, w__ssa_v2)
        for i__idx_v0, (acc__iter_v1,) in pl.range(2, init_values=(w__rv_v3,)):
            acc__ssa_v2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.muls(acc__iter_v1, 2.0)
            acc__rv_v3: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(acc__ssa_v2)
        # Two comment lines
        # above the return.
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(acc__rv_v3, [0, 0], out__ssa_v0)
        return out__ssa_v1
    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrate(self, x__ssa_v0: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], signal__ssa_v0: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8)]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pld.DistributedTensor[[2, 1], pl.INT32]]:
        resid__ssa_v0: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 4096)] = pl.tensor.create([16, 64], dtype=pl.FP32)
        for k__idx_v0, (resid__iter_v1,) in pl.range(2, init_values=(resid__ssa_v0,)):
            resid__ssa_v3: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 4096)] = self.loop_kernel(x__ssa_v0, resid__iter_v1)
            resid__rv_v2: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 4096)] = pl.yield_(resid__ssa_v3)
        tids__ssa_v0: pl.Array[8, pl.TASK_ID] = pl.array.create(8, dtype=pl.TASK_ID)
        tids__ssa_v1: pl.Array[8, pl.TASK_ID] = pl.array.update_element(tids__ssa_v0, 0, 7)
        dep__ssa_v0: pl.Scalar[pl.TASK_ID] = pl.system.task_dummy(deps=[])
        ctx__ssa_v0: pl.PrefetchAsyncContext = pl.prefetch_async(x__ssa_v0)
        odd__ssa_v0: pl.Scalar[pl.NOT_A_DTYPE] = pl.cast(1, pl.INT32)
        box__ssa_v0: pl.Box[pl.Tile[[16, 64], pl.FP32], pl.MemRef("mem_ddr_7", pl.const(0, pl.INT64), 4096), [2, 1], pl.NOT_A_DTYPE] = pl.box(x__ssa_v0)
        signal__ssa_v1: pld.DistributedTensor[[2, 1], pl.INT32, pl.MemRef("mem_ddr_5", pl.const(0, pl.INT64), 8)] = signal__ssa_v0
        return resid__rv_v2, signal__ssa_v1
    @pl.function
    def free_function(n__ssa_v0: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
        m__ssa_v0: pl.Scalar[pl.INT32] = n__ssa_v0 + 1
        return m__ssa_v0
