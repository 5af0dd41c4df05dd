error[MR-E008]: Right buffer usage (131072 bytes) exceeds platform limit (65536 bytes)
