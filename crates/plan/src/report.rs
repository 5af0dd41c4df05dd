//! What planning produces besides the planned function: the report (per-space packings,
//! buffers, inserted moves, removed allocs, lifetimes, diagnostics) and the planning error.

use memreuse_ir::diagnostics::Diagnostic;
use memreuse_ir::{Function, MemSpace, Name, Span, VarId, VarTable};

use crate::analysis::lifetimes::{Lifetimes, LiveStep};

/// A planning failure: PyPTO's ValueError or internal error, with its exact text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlanError(pub Diagnostic);

impl PlanError {
    pub fn new(code: &'static str, message: impl Into<String>, span: Span) -> PlanError {
        PlanError(Diagnostic::error(code, message, span))
    }

    pub fn with_hint(self, hint: impl Into<String>) -> PlanError {
        PlanError(self.0.with_hint(hint))
    }
}

/// A planned function and what the planner decided.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionPlan {
    pub function: Function,
    pub report: PlanReport,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanReport {
    pub spaces: Vec<SpaceReport>,
    pub removed_allocs: Vec<Name>,
    pub inserted_moves: Vec<MoveReport>,
    pub lifetimes: Vec<LifetimeReport>,
    pub diagnostics: Vec<Diagnostic>,
    /// Where each statement numbered by `lifetimes`' `def` and `last` is in the source.
    pub statement_spans: Vec<Span>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SpaceReport {
    pub space: MemSpace,
    /// The usable bytes; `None` when unknown.
    pub capacity: Option<i64>,
    /// Tiles that take part in planning (assignment-defined, with a MemRef).
    pub tiles: usize,
    pub buffers_before: usize,
    pub buffers_after: usize,
    pub bytes_before: i64,
    pub bytes_after: i64,
    /// Maximum bytes live at one statement: the peak of `live`.
    pub lower_bound: i64,
    /// The allocator's footprint: buffers laid out 32-byte aligned.
    pub footprint: i64,
    /// With the offset planner: the footprint PyPTO's packing would need.
    pub pypto_footprint: Option<i64>,
    pub buffers: Vec<BufferReport>,
    /// The bytes live at each statement ([`Lifetimes::live_bytes`]): detail, like `buffers`.
    pub live: Vec<LiveStep>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BufferReport {
    pub base: Name,
    pub size: i64,
    pub offset: i64,
    pub pinned: bool,
    pub members: Vec<Name>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MoveReport {
    pub destination: Name,
    pub source: Name,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LifetimeReport {
    pub var: Name,
    pub space: MemSpace,
    pub size: i64,
    pub def: u32,
    pub last: u32,
}

pub(crate) fn lifetime_report(lifetimes: &Lifetimes) -> Vec<LifetimeReport> {
    MemberRows::of(lifetimes).sorted()
}

/// The lifetime report's rows in interval order, with each interval's range of rows: the space
/// reports take member names from here rather than read the variable table a second time.
#[derive(Clone, Debug)]
pub struct MemberRows {
    rows: Vec<LifetimeReport>,
    pub(crate) of_interval: Vec<std::ops::Range<usize>>,
}

impl MemberRows {
    pub fn of(lifetimes: &Lifetimes) -> MemberRows {
        let mut rows = Vec::with_capacity(lifetimes.member_facts().len());
        let mut of_interval = Vec::with_capacity(lifetimes.intervals.len());
        let mut facts = lifetimes.member_facts().iter();
        for iv in &lifetimes.intervals {
            let start = rows.len();
            for (&v, (name, size)) in iv.members.iter().zip(facts.by_ref()) {
                if let Some((def, last)) = lifetimes.liveness(v) {
                    rows.push(LifetimeReport {
                        var: name.clone(),
                        space: iv.space,
                        size: *size,
                        def,
                        last,
                    });
                }
            }
            of_interval.push(start..rows.len());
        }
        MemberRows { rows, of_interval }
    }

    pub(crate) fn names(&self, interval: usize) -> impl Iterator<Item = Name> + '_ {
        self.rows[self.of_interval[interval].clone()]
            .iter()
            .map(|row| row.var.clone())
    }

    /// The report's order: by definition, then last use.
    fn sorted(mut self) -> Vec<LifetimeReport> {
        self.rows.sort_by_key(|r| (r.def, r.last));
        self.rows
    }
}

/// The report rows of the `tile.move`s a plan inserted, `(destination, source)` each, located
/// at the source.
pub(crate) fn move_reports(moves: &[(VarId, VarId)], vars: &VarTable) -> Vec<MoveReport> {
    moves
        .iter()
        .map(|&(destination, source)| MoveReport {
            destination: vars[destination].name.clone(),
            source: vars[source].name.clone(),
            span: vars[source].span,
        })
        .collect()
}
