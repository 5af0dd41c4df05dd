error[MR-E007]: overlapping reserve_buffer ranges in function 'main': [2048, 3072) overlaps with [0, 4096)
