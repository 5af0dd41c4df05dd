error[MR-E008]: Vec buffer usage (3072 bytes) exceeds platform limit (2560 bytes)
