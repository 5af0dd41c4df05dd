error[MR-E008]: Right needs 81920 bytes here (81920 bytes live in r0, r1, r2, r3) but the limit is 65536 bytes
