# rule §11 #4 TestBasic::test_empty_function: no tile intervals, so the function is returned
# unchanged (§7: no cleanup, no attr strip) and has no allocs.
# memreuse-test: backend=950 step0=on
# expect: allocs
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        return output
