"""Kernels of our own in PyPTO's DSL, for compiling end to end (as sources: PyPTO's parser
builds them, as `@pl.program` classes would be built in a user's module)."""

SOFTMAX = '''
import pypto.language as pl

@pl.program
class Softmax:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        scratch: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        row_max: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t, scratch)
        shifted: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(t, row_max)
        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(shifted)
        row_sum: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(e, scratch)
        p: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_div(e, row_sum)
        stored: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(p, [0, 0], out)
        return stored
'''

MATMUL_K_LOOP = '''
import pypto.language as pl

@pl.program
class MatmulKLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        a: pl.Tensor[[16, 128], pl.BF16],
        b: pl.Tensor[[128, 32], pl.BF16],
        c: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        a_mat = pl.tile.load(a, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [128, 32], target_memory=pl.Mem.Mat)
        acc0 = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k, (acc,) in pl.range(0, 4, init_values=(acc0,)):
            a_k = pl.tile.extract(a_mat, 0, k * 32, shape=[16, 32], target_memory=pl.Mem.Left)
            b_k = pl.tile.extract(b_mat, k * 32, 0, shape=[32, 32], target_memory=pl.Mem.Right)
            acc_next = pl.tile.matmul_acc(acc, a_k, b_k)
            acc_out = pl.yield_(acc_next)
        stored = pl.tile.store(acc_out, [0, 0], c)
        return stored
'''

# One query block against four key/value blocks: the running max, sum and output are loop
# carries, and the first block takes the other arm of an if (no rescaling).
FLASH_ATTENTION = '''
import pypto.language as pl

@pl.program
class FlashAttentionBlock:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        s: pl.Tensor[[16, 256], pl.FP32],
        v: pl.Tensor[[16, 256], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        scratch: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        m0: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 1], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        l0: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 1], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        o0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for j, (m, l, o) in pl.range(0, 4, init_values=(m0, l0, o0)):
            s_j: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(s, [0, j * 64], [16, 64], target_memory=pl.Mem.Vec)
            v_j: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(v, [0, j * 64], [16, 64], target_memory=pl.Mem.Vec)
            m_j: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(s_j, scratch)
            if j == 0:
                p0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(pl.tile.row_expand_sub(s_j, m_j))
                l_first: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(p0, scratch)
                o_first: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(p0, v_j)
                m_new, l_new, o_new = pl.yield_(m_j, l_first, o_first)
            else:
                m_max: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.maximum(m, m_j)
                alpha: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.exp(pl.tile.sub(m, m_max))
                p: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(pl.tile.row_expand_sub(s_j, m_max))
                l_sum: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(pl.tile.mul(l, alpha), pl.tile.row_sum(p, scratch))
                o_next: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(pl.tile.row_expand_mul(o, alpha), pl.tile.mul(p, v_j))
                m_new, l_new, o_new = pl.yield_(m_max, l_sum, o_next)
            m_out, l_out, o_out = pl.yield_(m_new, l_new, o_new)
        result: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_div(o_out, l_out)
        stored: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(result, [0, 0], out)
        return stored
'''

OURS = {"softmax": SOFTMAX, "matmul_k_loop": MATMUL_K_LOOP, "flash_attention": FLASH_ATTENTION}

# PyPTO's plan of this one is unsafe: the loop carry `acc` stays on the buffer of its init
# value `x_tile`, so each iteration's next value is written back over `x_tile`, which the
# subtraction after the loop still reads. memreuse gives the carry its own buffer, fed by a
# copy of `x_tile` (repair MR-R002).
UNSAFE = '''
import pypto.language as pl

@pl.program
class InitReadAfterLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        x: pl.Tensor[[32, 32], pl.FP32],
        y: pl.Tensor[[128, 32], pl.FP32],
        out: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        x_tile: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(0, 4, init_values=(x_tile,)):
            y_i: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [i * 32, 0], [32, 32], target_memory=pl.Mem.Vec)
            acc_next: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, y_i)
            acc_out = pl.yield_(acc_next)
        delta: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.sub(acc_out, x_tile)
        stored: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(delta, [0, 0], out)
        return stored
'''
