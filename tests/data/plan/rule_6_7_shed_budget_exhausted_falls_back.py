# rule §6.7, §9.2 shed budget, the exhausted side: 257 groups.
# r0 and r1 (24576 B Right, lifetime-disjoint) are stages 0 and 1 of every pipeline group
# 0..256; np0 (24576 B) is live across both, so np0 | r0 | r1 = 73728 > 65536 until every group
# is shed to F = 1 (each group starts at F = min(2, 65536 / 24576) = 2; MaxRelief ties on the slot
# and sheds the smallest id first, one group per re-pack).
# After 256 re-packs group 256 still has F = 2, so re-pack 257 is out of budget: force_legacy (which
# never separates L0 tiles) merges r0 and r1 and fits, hence the warning without the overflow
# clause; a forced-legacy space gets no PH-MR-001 (§6.8). R mode.
# memreuse-test: backend=910b step0=off
# expect: same r0 r1
# expect: distinct np0 r0
# expect: diag MR-W001 capacity-gated reuse could not fit memory space Right within the shed-repack budget; fell back to the legacy packing.
# expect: nodiag PH-MR-001
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, la: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], bnp: pl.Tensor[[128, 96], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 24576)], b: pl.Tensor[[128, 96], pl.BF16, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 24576)], onp: pl.Out[pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 6144)]], o: pl.Out[pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 6144)]]) -> pl.Tensor[[16, 96], pl.FP32]:
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_mat_7: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 24576)
        mem_right_8: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 24576)
        mem_mat_9: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 24576)
        mem_right_10: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 24576)
        mem_acc_11: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 6144)
        mem_mat_12: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 24576)
        mem_right_13: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 24576)
        mem_acc_14: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 6144)
        mem_acc_15: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 6144)
        lam: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(la, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat, transpose=False)
        lt: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(lam, target_memory=pl.Mem.Left)
        bnpm: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(bnp, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        np0: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_8, pl.const(0, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(bnpm, target_memory=pl.Mem.Right)
        b0m: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        r0: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_10, pl.const(0, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(b0m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0;1:0;2:0;3:0;4:0;5:0;6:0;7:0;8:0;9:0;10:0;11:0;12:0;13:0;14:0;15:0;16:0;17:0;18:0;19:0;20:0;21:0;22:0;23:0;24:0;25:0;26:0;27:0;28:0;29:0;30:0;31:0;32:0;33:0;34:0;35:0;36:0;37:0;38:0;39:0;40:0;41:0;42:0;43:0;44:0;45:0;46:0;47:0;48:0;49:0;50:0;51:0;52:0;53:0;54:0;55:0;56:0;57:0;58:0;59:0;60:0;61:0;62:0;63:0;64:0;65:0;66:0;67:0;68:0;69:0;70:0;71:0;72:0;73:0;74:0;75:0;76:0;77:0;78:0;79:0;80:0;81:0;82:0;83:0;84:0;85:0;86:0;87:0;88:0;89:0;90:0;91:0;92:0;93:0;94:0;95:0;96:0;97:0;98:0;99:0;100:0;101:0;102:0;103:0;104:0;105:0;106:0;107:0;108:0;109:0;110:0;111:0;112:0;113:0;114:0;115:0;116:0;117:0;118:0;119:0;120:0;121:0;122:0;123:0;124:0;125:0;126:0;127:0;128:0;129:0;130:0;131:0;132:0;133:0;134:0;135:0;136:0;137:0;138:0;139:0;140:0;141:0;142:0;143:0;144:0;145:0;146:0;147:0;148:0;149:0;150:0;151:0;152:0;153:0;154:0;155:0;156:0;157:0;158:0;159:0;160:0;161:0;162:0;163:0;164:0;165:0;166:0;167:0;168:0;169:0;170:0;171:0;172:0;173:0;174:0;175:0;176:0;177:0;178:0;179:0;180:0;181:0;182:0;183:0;184:0;185:0;186:0;187:0;188:0;189:0;190:0;191:0;192:0;193:0;194:0;195:0;196:0;197:0;198:0;199:0;200:0;201:0;202:0;203:0;204:0;205:0;206:0;207:0;208:0;209:0;210:0;211:0;212:0;213:0;214:0;215:0;216:0;217:0;218:0;219:0;220:0;221:0;222:0;223:0;224:0;225:0;226:0;227:0;228:0;229:0;230:0;231:0;232:0;233:0;234:0;235:0;236:0;237:0;238:0;239:0;240:0;241:0;242:0;243:0;244:0;245:0;246:0;247:0;248:0;249:0;250:0;251:0;252:0;253:0;254:0;255:0;256:0"})
        m0: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_11, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, r0)
        o_1: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 6144)] = pl.tile.store(m0, [0, 0], o)
        b1m: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_mat_12, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 96], [128, 96], target_memory=pl.Mem.Mat, transpose=False)
        r1: pl.Tile[[128, 96], pl.BF16, pl.MemRef(mem_right_13, pl.const(0, pl.INT64), 24576), pl.Mem.Right] = pl.tile.move(b1m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1;1:1;2:1;3:1;4:1;5:1;6:1;7:1;8:1;9:1;10:1;11:1;12:1;13:1;14:1;15:1;16:1;17:1;18:1;19:1;20:1;21:1;22:1;23:1;24:1;25:1;26:1;27:1;28:1;29:1;30:1;31:1;32:1;33:1;34:1;35:1;36:1;37:1;38:1;39:1;40:1;41:1;42:1;43:1;44:1;45:1;46:1;47:1;48:1;49:1;50:1;51:1;52:1;53:1;54:1;55:1;56:1;57:1;58:1;59:1;60:1;61:1;62:1;63:1;64:1;65:1;66:1;67:1;68:1;69:1;70:1;71:1;72:1;73:1;74:1;75:1;76:1;77:1;78:1;79:1;80:1;81:1;82:1;83:1;84:1;85:1;86:1;87:1;88:1;89:1;90:1;91:1;92:1;93:1;94:1;95:1;96:1;97:1;98:1;99:1;100:1;101:1;102:1;103:1;104:1;105:1;106:1;107:1;108:1;109:1;110:1;111:1;112:1;113:1;114:1;115:1;116:1;117:1;118:1;119:1;120:1;121:1;122:1;123:1;124:1;125:1;126:1;127:1;128:1;129:1;130:1;131:1;132:1;133:1;134:1;135:1;136:1;137:1;138:1;139:1;140:1;141:1;142:1;143:1;144:1;145:1;146:1;147:1;148:1;149:1;150:1;151:1;152:1;153:1;154:1;155:1;156:1;157:1;158:1;159:1;160:1;161:1;162:1;163:1;164:1;165:1;166:1;167:1;168:1;169:1;170:1;171:1;172:1;173:1;174:1;175:1;176:1;177:1;178:1;179:1;180:1;181:1;182:1;183:1;184:1;185:1;186:1;187:1;188:1;189:1;190:1;191:1;192:1;193:1;194:1;195:1;196:1;197:1;198:1;199:1;200:1;201:1;202:1;203:1;204:1;205:1;206:1;207:1;208:1;209:1;210:1;211:1;212:1;213:1;214:1;215:1;216:1;217:1;218:1;219:1;220:1;221:1;222:1;223:1;224:1;225:1;226:1;227:1;228:1;229:1;230:1;231:1;232:1;233:1;234:1;235:1;236:1;237:1;238:1;239:1;240:1;241:1;242:1;243:1;244:1;245:1;246:1;247:1;248:1;249:1;250:1;251:1;252:1;253:1;254:1;255:1;256:1"})
        m1: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_14, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, r1)
        o_2: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 6144)] = pl.tile.store(m1, [0, 0], o_1)
        mnp: pl.Tile[[16, 96], pl.FP32, pl.MemRef(mem_acc_15, pl.const(0, pl.INT64), 6144), pl.Mem.Acc] = pl.tile.matmul(lt, np0)
        onp_1: pl.Tensor[[16, 96], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 6144)] = pl.tile.store(mnp, [0, 0], onp)
        return onp_1
