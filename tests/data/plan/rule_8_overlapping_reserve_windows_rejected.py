# rule §2.5, §9.3 (test_allocate_memory_addr_rejects_overlapping_reserve_buffer_ranges): the AUTO
# window takes [0, 4096); an explicit base=2048 window [2048, 3072) overlaps it. The message names the
# new window first, then the one it hits. The function has no tiles: the windows are still resolved.
# memreuse-test: backend=950 step0=off
# expect: error MR-E007 overlapping reserve_buffer ranges in function 'main': [2048, 3072) overlaps with [0, 4096)
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.AIV)
    def main(self):
        pl.system.reserve_buffer(name="first_slot_buffer", size=4096)
        pl.system.reserve_buffer(name="overlap_slot_buffer", size=1024, base=2048)
