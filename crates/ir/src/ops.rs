//! The op table (rules §13, with seed rule S5): the one place that knows anything about an op by its
//! name — where its output lives, whether it lands on an input's buffer, which inputs it must
//! not alias, whether it is a view, and the role a few ops play for the planner and the
//! checkers (allocations, loads, tpops, reserved windows, casts, slices). Every other crate asks
//! this table; adding an op is adding a row.
//!
//! Tile ops that are not listed are in-place safe with no forbidden operands, and their output
//! space is only what a `target_memory` kwarg says.

use std::sync::LazyLock;

use rustc_hash::FxHashMap;

use crate::named::MemSpace;

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
    /// The upstream snapshot `e2d0f78ae` lists the op as in-place safe: its
    /// `not_inplace_safe` comes from seed rule S5 (rules §S).
    pub inplace_safe_in_snapshot: bool,
    /// On an A5 (Ascend950) target, only these arguments are forbidden (tile.prelu).
    pub a5_forbidden_args: Option<&'static [usize]>,
    /// Arguments the output must not alias (`forbid_output_alias`).
    pub forbid: &'static [usize],
    /// Whether the op is a view that shares its source's MemRef (InitMemRef rule 3).
    pub view: bool,
    /// Whether a result made from a loaded tile still counts as loaded (the 910B split-AIV
    /// load/tpop hazard, rules §6.1).
    pub keeps_load_taint: bool,
}

/// The part a few ops play beyond their aliasing facts; most ops are `Plain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpRole {
    Plain,
    /// `tile.alloc` / `tensor.alloc`: declares a buffer.
    Alloc,
    /// `reserve_buffer`: reserves a window of on-chip memory (rules §2.5).
    ReserveBuffer,
    /// `tile.load`: global memory into a tile.
    Load,
    /// `tile.read`: reads global memory like a load.
    Read,
    /// `tile.tpop_from_aic`: a tile popped from the cube core's pipe.
    TpopFromAic,
    /// `tile.tpop_from_aiv`: a tile popped from the vector core's pipe.
    TpopFromAiv,
    /// `tile.slice`: a sub-tile of its source, possibly at a dynamic offset.
    Slice,
    /// `tile.set_validshape`: a view Step 0 may retarget through.
    SetValidShape,
    /// `tile.cast`: may widen its element type (a widening cast must not alias its input).
    Cast,
    /// `tile.move`: the copy the planner inserts.
    Move,
}

impl OpRole {
    /// Whether the op brings data in from global memory.
    pub fn reads_global_memory(self) -> bool {
        matches!(self, OpRole::Load | OpRole::Read)
    }

    /// Whether the op's result is popped from a cross-core pipe (it comes without a MemRef).
    pub fn is_tpop(self) -> bool {
        matches!(self, OpRole::TpopFromAic | OpRole::TpopFromAiv)
    }
}

/// The callee the planner writes for the allocations it adds.
pub const TILE_ALLOC_CALLEE: &str = "pl.tile.alloc";
/// The callee the planner writes for the copies it inserts.
pub const TILE_MOVE_CALLEE: &str = "pl.tile.move";

/// Whether a `tile.move` can copy a tile from space `from` to space `to`: the L0C accumulator
/// (Acc) has no data path back into itself, so there is no Acc-to-Acc copy (rules §7.4).
pub fn tile_move_exists(from: MemSpace, to: MemSpace) -> bool {
    !(from == MemSpace::Acc && to == MemSpace::Acc)
}

/// One op: its registered name (without the `pl.` prefix), its role, and its aliasing facts
/// (`None` for the few listed ops Step 0 treats as unregistered).
#[derive(Clone, Copy, Debug)]
pub struct OpRow {
    pub name: &'static str,
    pub role: OpRole,
    pub info: Option<OpInfo>,
}

const fn out(output: OutputSpace) -> OpInfo {
    OpInfo {
        output,
        reuses_input: None,
        not_inplace_safe: false,
        inplace_safe_in_snapshot: false,
        a5_forbidden_args: None,
        forbid: &[],
        view: false,
        keeps_load_taint: false,
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

/// Not in-place safe by seed rule S5 only: the snapshot treats it as in-place safe.
const fn not_inplace_safe_by_seed_s5(output: OutputSpace) -> OpInfo {
    OpInfo {
        inplace_safe_in_snapshot: true,
        ..nip(output)
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

const fn keeps_load_taint(info: OpInfo) -> OpInfo {
    OpInfo {
        keeps_load_taint: true,
        ..info
    }
}

const fn row(name: &'static str, role: OpRole, info: Option<OpInfo>) -> OpRow {
    OpRow { name, role, info }
}

const fn view() -> OpInfo {
    OpInfo {
        view: true,
        ..out(OutputSpace::Inherit)
    }
}

/// Every op the planner or a checker knows by name, sorted by name for binary search.
pub const OPS: &[OpRow] = &[
    row("reserve_buffer", OpRole::ReserveBuffer, None),
    row("system.reserve_buffer", OpRole::ReserveBuffer, None),
    row("tensor.alloc", OpRole::Alloc, None),
    row(
        "tensor.assemble",
        OpRole::Plain,
        Some(reuses(OutputSpace::None, 0)),
    ),
    row("tensor.create", OpRole::Plain, None),
    row("tensor.reinterpret_view", OpRole::Plain, Some(view())),
    row("tensor.reshape", OpRole::Plain, Some(view())),
    row("tensor.set_validshape", OpRole::Plain, Some(view())),
    row(
        "tensor.slice",
        OpRole::Plain,
        Some(keeps_load_taint(view())),
    ),
    row("tensor.transpose_view", OpRole::Plain, Some(view())),
    row("tile.abs", OpRole::Plain, Some(out(VEC))),
    row("tile.add", OpRole::Plain, Some(out(VEC))),
    row("tile.adds", OpRole::Plain, Some(out(VEC))),
    row("tile.alloc", OpRole::Alloc, Some(out(OutputSpace::None))),
    row("tile.and_", OpRole::Plain, Some(out(VEC))),
    row("tile.ands", OpRole::Plain, Some(nip(VEC))),
    row("tile.assemble", OpRole::Plain, Some(view())),
    row("tile.batch_matmul", OpRole::Plain, Some(out(ACC))),
    row("tile.batch_matmul_acc", OpRole::Plain, Some(reuses(ACC, 0))),
    row("tile.cast", OpRole::Cast, Some(out(VEC))),
    row("tile.ceil", OpRole::Plain, Some(out(VEC))),
    row("tile.cmp", OpRole::Plain, Some(out(VEC))),
    row("tile.cmps", OpRole::Plain, Some(out(VEC))),
    row("tile.col_argmax", OpRole::Plain, Some(nip(VEC))),
    row("tile.col_argmin", OpRole::Plain, Some(nip(VEC))),
    row("tile.col_expand", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.col_expand_add", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.col_expand_div", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.col_expand_expdif", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.col_expand_max", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.col_expand_min", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.col_expand_mul", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.col_expand_sub", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.col_max", OpRole::Plain, Some(out(VEC))),
    row("tile.col_min", OpRole::Plain, Some(out(VEC))),
    row("tile.col_prod", OpRole::Plain, Some(out(VEC))),
    row("tile.col_sum", OpRole::Plain, Some(out(VEC))),
    row("tile.concat", OpRole::Plain, Some(nip(VEC))),
    row("tile.cos", OpRole::Plain, Some(out(VEC))),
    row(
        "tile.create",
        OpRole::Plain,
        Some(out(OutputSpace::Kwarg(None))),
    ),
    row("tile.div", OpRole::Plain, Some(out(VEC))),
    row("tile.divs", OpRole::Plain, Some(out(VEC))),
    row("tile.exp", OpRole::Plain, Some(out(VEC))),
    row("tile.expands", OpRole::Plain, Some(out(VEC))),
    row(
        "tile.extract",
        OpRole::Plain,
        Some(keeps_load_taint(nip(OutputSpace::Kwarg(Some(
            MemSpace::Vec,
        ))))),
    ),
    row(
        "tile.fillpad",
        OpRole::Plain,
        Some(keeps_load_taint(out(VEC))),
    ),
    row("tile.fillpad_expand", OpRole::Plain, Some(nip(VEC))),
    row(
        "tile.fillpad_inplace",
        OpRole::Plain,
        Some(keeps_load_taint(reuses(VEC, 0))),
    ),
    row("tile.floor", OpRole::Plain, Some(out(VEC))),
    row("tile.fmod", OpRole::Plain, Some(nip(VEC))),
    row("tile.fmods", OpRole::Plain, Some(nip(VEC))),
    row("tile.full", OpRole::Plain, Some(out(VEC))),
    row("tile.gather", OpRole::Plain, Some(nip(VEC))),
    row("tile.gather_compare", OpRole::Plain, Some(nip(VEC))),
    row("tile.gather_mask", OpRole::Plain, Some(nip(VEC))),
    row(
        "tile.gather_row",
        OpRole::Plain,
        Some(reuses(OutputSpace::None, 0)),
    ),
    row("tile.gatherb", OpRole::Plain, Some(nip(VEC))),
    row("tile.gemv", OpRole::Plain, Some(out(ACC))),
    row("tile.gemv_acc", OpRole::Plain, Some(reuses(ACC, 0))),
    row("tile.gemv_bias", OpRole::Plain, Some(out(ACC))),
    row(
        "tile.load",
        OpRole::Load,
        Some(out(OutputSpace::Kwarg(None))),
    ),
    row("tile.log", OpRole::Plain, Some(out(VEC))),
    row("tile.lrelu", OpRole::Plain, Some(out(VEC))),
    row("tile.matmul", OpRole::Plain, Some(out(ACC))),
    row("tile.matmul_acc", OpRole::Plain, Some(reuses(ACC, 0))),
    row("tile.matmul_bias", OpRole::Plain, Some(out(ACC))),
    row("tile.matmul_mx", OpRole::Plain, Some(out(ACC))),
    row("tile.matmul_mx_acc", OpRole::Plain, Some(reuses(ACC, 0))),
    row("tile.matmul_mx_bias", OpRole::Plain, Some(out(ACC))),
    row("tile.maximum", OpRole::Plain, Some(out(VEC))),
    row("tile.maxs", OpRole::Plain, Some(out(VEC))),
    row(
        "tile.mgather",
        OpRole::Plain,
        Some(nip(OutputSpace::Kwarg(Some(MemSpace::Vec)))),
    ),
    row("tile.minimum", OpRole::Plain, Some(out(VEC))),
    row("tile.mins", OpRole::Plain, Some(out(VEC))),
    row(
        "tile.move",
        OpRole::Move,
        Some(nip(OutputSpace::Kwarg(Some(MemSpace::Vec)))),
    ),
    row("tile.mrgsort_format1", OpRole::Plain, Some(nip(VEC))),
    row("tile.mrgsort_format2", OpRole::Plain, Some(nip(VEC))),
    row(
        "tile.mscatter",
        OpRole::Plain,
        Some(reuses(OutputSpace::None, 2)),
    ),
    row("tile.mul", OpRole::Plain, Some(out(VEC))),
    row("tile.muls", OpRole::Plain, Some(out(VEC))),
    row("tile.neg", OpRole::Plain, Some(out(VEC))),
    row("tile.not_", OpRole::Plain, Some(out(VEC))),
    row("tile.or_", OpRole::Plain, Some(out(VEC))),
    row("tile.ors", OpRole::Plain, Some(nip(VEC))),
    row("tile.pow", OpRole::Plain, Some(out(VEC))),
    row("tile.powf", OpRole::Plain, Some(out(VEC))),
    row(
        "tile.prelu",
        OpRole::Plain,
        Some(OpInfo {
            a5_forbidden_args: Some(&[0, 1]),
            ..nip(VEC)
        }),
    ),
    row(
        "tile.read",
        OpRole::Read,
        Some(out(OutputSpace::Kwarg(None))),
    ),
    row("tile.recip", OpRole::Plain, Some(nip(VEC))),
    row(
        "tile.reinterpret_view",
        OpRole::Plain,
        Some(keeps_load_taint(view())),
    ),
    row("tile.relu", OpRole::Plain, Some(out(VEC))),
    row(
        "tile.rem",
        OpRole::Plain,
        Some(not_inplace_safe_by_seed_s5(VEC)),
    ),
    row(
        "tile.rems",
        OpRole::Plain,
        Some(not_inplace_safe_by_seed_s5(VEC)),
    ),
    row(
        "tile.reshape",
        OpRole::Plain,
        Some(keeps_load_taint(view())),
    ),
    row("tile.round", OpRole::Plain, Some(out(VEC))),
    row("tile.row_argmax", OpRole::Plain, Some(nip(VEC))),
    row("tile.row_argmin", OpRole::Plain, Some(nip(VEC))),
    row("tile.row_expand", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.row_expand_add", OpRole::Plain, Some(forbids(&[1, 2]))),
    row("tile.row_expand_div", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.row_expand_expdif", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.row_expand_max", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.row_expand_min", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.row_expand_mul", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.row_expand_sub", OpRole::Plain, Some(forbids(&[1]))),
    row("tile.row_max", OpRole::Plain, Some(nip(VEC))),
    row("tile.row_min", OpRole::Plain, Some(nip(VEC))),
    row("tile.row_prod", OpRole::Plain, Some(nip(VEC))),
    row("tile.row_sum", OpRole::Plain, Some(nip(VEC))),
    row("tile.rsqrt", OpRole::Plain, Some(nip(VEC))),
    row("tile.scatter", OpRole::Plain, Some(reuses(VEC, 0))),
    row("tile.scatter_mask", OpRole::Plain, Some(reuses(VEC, 0))),
    row("tile.scatter_update", OpRole::Plain, Some(reuses(VEC, 0))),
    row("tile.sel", OpRole::Plain, Some(forbids(&[0, 3]))),
    row("tile.sels", OpRole::Plain, Some(forbids(&[0]))),
    row("tile.set_validshape", OpRole::SetValidShape, Some(view())),
    row("tile.shl", OpRole::Plain, Some(out(VEC))),
    row("tile.shls", OpRole::Plain, Some(out(VEC))),
    row("tile.shr", OpRole::Plain, Some(out(VEC))),
    row("tile.shrs", OpRole::Plain, Some(out(VEC))),
    row("tile.sigmoid", OpRole::Plain, Some(out(VEC))),
    row("tile.sin", OpRole::Plain, Some(out(VEC))),
    row("tile.slice", OpRole::Slice, Some(keeps_load_taint(view()))),
    row("tile.sort32", OpRole::Plain, Some(nip(VEC))),
    row("tile.sqrt", OpRole::Plain, Some(out(VEC))),
    row(
        "tile.store",
        OpRole::Plain,
        Some(reuses(OutputSpace::None, 2)),
    ),
    row("tile.sub", OpRole::Plain, Some(out(VEC))),
    row("tile.subs", OpRole::Plain, Some(out(VEC))),
    row("tile.tanh", OpRole::Plain, Some(out(VEC))),
    row(
        "tile.tget_scale_addr",
        OpRole::Plain,
        Some(OpInfo {
            reuses_input: Some(0),
            ..view()
        }),
    ),
    row(
        "tile.tpop_from_aic",
        OpRole::TpopFromAic,
        Some(out(OutputSpace::None)),
    ),
    row(
        "tile.tpop_from_aiv",
        OpRole::TpopFromAiv,
        Some(out(OutputSpace::None)),
    ),
    row(
        "tile.transpose",
        OpRole::Plain,
        Some(nip(OutputSpace::Inherit)),
    ),
    row(
        "tile.transpose_view",
        OpRole::Plain,
        Some(keeps_load_taint(view())),
    ),
    row("tile.xor", OpRole::Plain, Some(out(VEC))),
    row("tile.xors", OpRole::Plain, Some(nip(VEC))),
];

/// The table's row for an op (`tile.add`, without the `pl.` prefix).
///
/// Every call expression the parser builds asks this once, so it is a hash lookup (a few
/// dozen instructions) rather than a binary search of string comparisons over the table
/// (several hundred).
pub fn op_row(op: &str) -> Option<&'static OpRow> {
    static ROWS: LazyLock<FxHashMap<&'static str, &'static OpRow>> =
        LazyLock::new(|| OPS.iter().map(|row| (row.name, row)).collect());
    ROWS.get(op).copied()
}

/// An op's aliasing facts. Any tile op not in the table is registered upstream; without knowing
/// its output space, only its `target_memory` kwarg can say where the result lives.
pub fn op_info(op: &str) -> Option<OpInfo> {
    info_of(op_row(op), || op)
}

/// [`op_info`] of an op whose row (`op_row`) is already known; `op` names it, and is asked
/// only when the table does not list it.
pub fn info_of<'a>(row: Option<&OpRow>, op: impl FnOnce() -> &'a str) -> Option<OpInfo> {
    match row {
        Some(row) => row.info,
        None if op().starts_with("tile.") => Some(out(OutputSpace::Kwarg(None))),
        None => None,
    }
}

/// An op's role (`Plain` for any op not in the table).
pub fn op_role(op: &str) -> OpRole {
    op_row(op).map_or(OpRole::Plain, |row| row.role)
}

/// Whether an op is known to PyPTO's registry as far as planning is concerned: Step 0 refuses
/// to retarget through calls of unknown ops.
pub fn is_registered(op: &str) -> bool {
    op_info(op).is_some()
}

#[cfg(test)]
mod tests {
    use super::OPS;

    #[test]
    fn sorted_without_duplicates() {
        assert!(OPS.windows(2).all(|pair| pair[0].name < pair[1].name));
    }
}
