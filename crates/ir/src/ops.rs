//! The op property table (SPEC §13, seed table): the one place that says, per tile op, where its
//! output lives, whether it lands on an input's buffer, and which inputs it must not alias.
//!
//! Tile ops that are not listed are in-place safe with no forbidden operands, and their output
//! space is only what a `target_memory` kwarg says.

use crate::MemSpace;

/// Where an op's result lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputSpace {
    /// Taken from the call's `target_memory` kwarg, with this default when it is absent.
    Kwarg(Option<MemSpace>),
    Fixed(MemSpace),
    /// A view: the result takes argument 0's space (and buffer).
    Inherit,
    /// The op's result has no on-chip space of its own (stores, scatters into tensors, tpop).
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub output: OutputSpace,
    /// The output lands on argument k's buffer ("output reuses input k").
    pub reuses_input: Option<usize>,
    /// The output must not alias any variable argument.
    pub not_inplace_safe: bool,
    /// On an A5 (Ascend950) target, only these arguments are forbidden (tile.prelu).
    pub a5_forbidden_args: Option<&'static [usize]>,
    /// Arguments the output must not alias (`forbid_output_alias`).
    pub forbid: &'static [usize],
    /// Whether the op is a view that shares its source's MemRef (InitMemRef rule 3).
    pub view: bool,
}

const fn out(output: OutputSpace) -> OpInfo {
    OpInfo {
        output,
        reuses_input: None,
        not_inplace_safe: false,
        a5_forbidden_args: None,
        forbid: &[],
        view: false,
    }
}

const VEC: OutputSpace = OutputSpace::Fixed(MemSpace::Vec);
const ACC: OutputSpace = OutputSpace::Fixed(MemSpace::Acc);

const fn nip(output: OutputSpace) -> OpInfo {
    OpInfo {
        not_inplace_safe: true,
        ..out(output)
    }
}

const fn reuses(output: OutputSpace, k: usize) -> OpInfo {
    OpInfo {
        reuses_input: Some(k),
        ..out(output)
    }
}

const fn forbids(forbid: &'static [usize]) -> OpInfo {
    OpInfo { forbid, ..out(VEC) }
}

const fn view() -> OpInfo {
    OpInfo {
        view: true,
        ..out(OutputSpace::Inherit)
    }
}

/// Looks up an op by its registered name (`tile.add`; without the `pl.` prefix).
pub fn op_info(op: &str) -> Option<OpInfo> {
    let name = op
        .strip_prefix("tile.")
        .or_else(|| op.strip_prefix("tensor."));
    let tensor = op.starts_with("tensor.");
    let name = name?;
    if tensor {
        // Tensor ops matter only as views and in-place assembles (SPEC §3.1).
        return match name {
            "reshape" | "slice" | "reinterpret_view" | "set_validshape" | "transpose_view" => {
                Some(view())
            }
            "assemble" => Some(reuses(OutputSpace::None, 0)),
            _ => None,
        };
    }
    Some(match name {
        "load" | "create" | "read" => out(OutputSpace::Kwarg(None)),
        "move" | "extract" | "mgather" => nip(OutputSpace::Kwarg(Some(MemSpace::Vec))),
        "store" | "mscatter" => reuses(OutputSpace::None, 2),
        "gather_row" => reuses(OutputSpace::None, 0),
        "reshape" | "slice" | "reinterpret_view" | "set_validshape" | "transpose_view"
        | "assemble" => view(),
        "tget_scale_addr" => OpInfo {
            reuses_input: Some(0),
            ..view()
        },
        "transpose" => nip(OutputSpace::Inherit),
        "matmul" | "matmul_bias" | "matmul_mx" | "matmul_mx_bias" | "batch_matmul" | "gemv"
        | "gemv_bias" => out(ACC),
        "matmul_acc" | "gemv_acc" | "batch_matmul_acc" | "matmul_mx_acc" => reuses(ACC, 0),
        "fillpad_inplace" | "scatter" | "scatter_mask" | "scatter_update" => reuses(VEC, 0),
        "recip" | "rsqrt" | "fmod" | "fmods" | "rem" | "rems" | "ands" | "ors" | "xors"
        | "fillpad_expand" | "concat" | "gather" | "gatherb" | "gather_mask" | "gather_compare"
        | "row_sum" | "row_max" | "row_min" | "row_prod" | "row_argmax" | "row_argmin"
        | "col_argmax" | "col_argmin" | "sort32" | "mrgsort_format1" | "mrgsort_format2" => {
            nip(VEC)
        }
        "prelu" => OpInfo {
            a5_forbidden_args: Some(&[0, 1]),
            ..nip(VEC)
        },
        "sel" => forbids(&[0, 3]),
        "sels" => forbids(&[0]),
        "row_expand" | "row_expand_sub" | "row_expand_div" | "row_expand_mul"
        | "row_expand_max" | "row_expand_min" | "row_expand_expdif" => forbids(&[1]),
        "row_expand_add" => forbids(&[1, 2]),
        "col_expand" | "col_expand_mul" | "col_expand_add" | "col_expand_div"
        | "col_expand_sub" | "col_expand_max" | "col_expand_min" | "col_expand_expdif" => {
            forbids(&[1])
        }
        // The widening rule of tile.cast depends on dtypes and lives with the forbid map.
        "cast" => out(VEC),
        "tpop_from_aic" | "tpop_from_aiv" | "alloc" => out(OutputSpace::None),
        "add" | "adds" | "sub" | "subs" | "mul" | "muls" | "div" | "divs" | "exp" | "log"
        | "sqrt" | "abs" | "neg" | "relu" | "lrelu" | "cmp" | "cmps" | "maximum" | "minimum"
        | "maxs" | "mins" | "col_sum" | "col_max" | "col_min" | "col_prod" | "fillpad" | "full"
        | "and_" | "or_" | "xor" | "not_" | "shl" | "shr" | "shls" | "shrs" | "expands" | "sin"
        | "cos" | "tanh" | "sigmoid" | "pow" | "powf" | "round" | "floor" | "ceil" => out(VEC),
        // Any other tile op is registered upstream; without knowing its output space, only its
        // `target_memory` kwarg can say where the result lives.
        _ => out(OutputSpace::Kwarg(None)),
    })
}

/// Whether an op is known to PyPTO's registry as far as planning is concerned: Step 0 refuses
/// to retarget through calls of unknown ops.
pub fn is_registered(op: &str) -> bool {
    op_info(op).is_some()
}
