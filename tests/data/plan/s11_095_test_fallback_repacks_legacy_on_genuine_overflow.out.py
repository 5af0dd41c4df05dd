error[MR-E008]: Right buffer usage (81920 bytes) exceeds platform limit (65536 bytes)
