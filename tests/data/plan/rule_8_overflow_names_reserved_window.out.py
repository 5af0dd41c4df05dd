error[MR-E008]: Vec buffer usage (229376 bytes) exceeds platform limit (188416 bytes). The first 131072 bytes of that space are reserved by system.reserve_buffer, so tiles are allocated above them
