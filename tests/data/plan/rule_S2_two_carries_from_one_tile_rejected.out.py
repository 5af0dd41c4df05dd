error[MR-E006]: loop carries 'a' and 'b' start on overlapping buffers ('mem_vec_2'), so no order of their writebacks keeps both values
