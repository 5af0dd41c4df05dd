error[MR-E006]: loop carries 'cur' and 'prev' start on overlapping buffers ('mem_vec_2'), so no order of their writebacks keeps both values
