# rule §8, §2.5: AllocateMemoryAddr runs even when MemoryReuse has no tile to plan: the AUTO
# window of an AIV function without tiles still gets its resolved `base=0` (the second AUTO window
# follows at 4096).
# memreuse-test: backend=950 step0=off addresses=on
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.AIV)
    def main(self):
        pl.system.reserve_buffer(name="first_slot_buffer", size=4096)
        pl.system.reserve_buffer(name="second_slot_buffer", size=1000)
