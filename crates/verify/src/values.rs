//! `V007`, the value checker: abstract interpretation of a planned function that tracks, for
//! every byte range of every buffer, which SSA values it holds, and checks at every read that
//! the operand's bytes hold the operand's value (in the style of regalloc2's `checker.rs`).
//!
//! It shares nothing with the planner, nor with the liveness checker beside it: no steps, no
//! lifetimes, only the IR and the op table's aliasing rows (views, "output reuses input k").
//!
//! # The abstract state
//!
//! A *region* is a base (or, with addressed MemRefs, a memory space). Each region holds sorted,
//! disjoint *cells* `[start, end)`, each with the set of values its bytes hold on every path
//! that reaches the current statement; bytes in no cell hold nothing known. A value only ever
//! sits inside its own range, so defining a value touches only that range: the bytes its data
//! takes from its MemRef's offset (a MemRef may be larger than its tile's data), for a view
//! its MemRef's bytes within its source's.
//!
//! * An op output is a *write*: its bytes hold that value alone (a tuple-returning op writes
//!   all its items at once, and items that overlap hold neither). An in-place result (the op
//!   table's "output reuses input k") is written over its input too, but the names of the
//!   input's datum (the input, its views and aliases) stay: the op, not the plan, changes the
//!   input's buffer. A loop init carried into that input is a value of its own and is lost.
//! * A view, a bare alias, an iter arg (from its init), a loop result (from its iter arg) and an
//!   `if` result (from each arm's yield) are *renames*: the new name is added wherever its
//!   source is, within the new name's own range; nothing is written.
//! * A loop runs its body from the join of the entry state and the back-edge state until the
//!   head state no longer changes (0, 1 or many iterations); at the back edge every iter arg
//!   takes the value yielded for it, all at once. The loop exits from the head state, so its
//!   results hold the last iteration's values, or the inits when the body never ran. The fast
//!   pass first forgets, in the regions the loop touches, the values no statement reads or
//!   renames from the loop's head on (a use inside a loop begun after the value's definition
//!   lasts to that loop's end): where they are decides no read, and a body writing over them
//!   would change the head state and cost a second pass for nothing. A value sits only in its
//!   own range, so forgetting one changes no other; a tile whose place moves with the
//!   iteration is kept.
//! * Iteration by iteration instead, when the loop's variable decides something in it (the
//!   offset of a view, a MemRef offset, an `if` condition: `if i == 0`), its bounds are known
//!   and it has at most `MAX_UNROLLED_TRIPS` iterations (and the function's unrolled work
//!   stays under `MAX_UNROLLED_WORK`): each iteration knows the variable's value, so a slice
//!   at `[i, 0]` sits on row `i` alone and a condition on `i` runs only the arm it selects. A
//!   scalar is known where it is computed from literals and known scalars (`scalars.rs`).
//!   An iteration that leaves the state as it found it repeats on the next value of the
//!   variable when that value decides the same (every condition, every view's place): what
//!   the iteration does depends only on the state and those decisions. So the next
//!   iterations replay the decisions alone, and run only from one that decides otherwise:
//!   an iteration repeated would only fail the reads it failed already.
//! * A Vec slice's bytes are its source's at the offset its operands give, whatever its MemRef
//!   prints (AllocateMemoryAddr prints a dynamic slice at its source's bare address). A slice
//!   reads nothing itself: its uses read its window.
//! * A Vec write reaches its data rows padded to 32-byte blocks; an Acc or L0 write (fractal
//!   layouts) its whole MemRef.
//! * An `if` runs each arm from the state before it and joins their end states; a value is
//!   known only where both arms left it. A write in one arm never disturbs a read in the other.
//!
//! Every read of an on-chip tile (op operands, yields, returns, loop headers, conditions) checks
//! that every byte of the tile's range holds it. Inputs are read before outputs are written,
//! except by an op whose op-table row says its output must not alias an input (not in-place
//! safe, a forbidden argument, a widening cast): it reads that input while it writes, so an
//! output written over the input's bytes destroys the value the op is reading. That depends
//! on the places alone, so it is found once, beside the interpretation.
//! A loop or `if` clones, joins and compares only the regions it defines values in.
//!
//! # Explaining a violation
//!
//! The fast pass records only which values some read found missing. Then one focused pass per
//! region follows the values lost there and remembers, per cell and value, the event that
//! removed it: a write, a loop's back edge, or a rename whose source was elsewhere. It stops
//! once each has failed a read (a read failing on an early iteration fails at the fixpoint
//! too, for the same reason). Values lost only because their source was (a view of a lost
//! tile, a carry of a lost yield) are not reported again.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::liveness::{on_chip_memref, var};
use memreuse_ir::diagnostics::{Diagnostic, Related};
use memreuse_ir::ops::OpRole;
use memreuse_ir::{
    Call, Expr, ExprKind, ForStmt, Function, LoopKind, MemSpace, Span, Stmt, StmtKind, TileType,
    Type, VarId,
};

use crate::options::VerifyOptions;
use crate::scalars::{Scalars, range_values};
use crate::text::{Text, Tile, Worded, Words, text};
use memreuse_ir::codes;

/// A broken plan can lose most of its values; past this many the rest are summarised.
pub const MAX_REPORTED: usize = 50;

/// Why a value is not where a read expects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The op that produced `writer`, at `at`, wrote over the value's bytes.
    Overwritten { writer: VarId, at: Span },
    /// At a loop's back edge (the yield at `at`) the iter arg takes the value yielded for it,
    /// which does not sit on all of the iter arg's bytes.
    CarryNotInPlace {
        iter_arg: VarId,
        yielded: Option<VarId>,
        at: Span,
    },
    /// `target` is a rename (view, alias, iter arg, loop or `if` result, at `at`) of `source`,
    /// which does not hold all of `target`'s bytes there.
    RenameNotInPlace {
        target: VarId,
        source: Option<VarId>,
        at: Span,
    },
    /// The op at `at` reads the value while it writes `writer` over its bytes: its op-table
    /// row says the output must not alias this input.
    ReadWhileWritten {
        writer: VarId,
        at: Span,
        why: MustNotAlias,
    },
}

/// Why an op's output must not alias one of its inputs (its op-table row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MustNotAlias {
    /// The op is not in-place safe: no input may share its output's bytes.
    NotInPlaceSafe { op: &'static str },
    /// The op must not write over its argument `arg`.
    ForbiddenArgument { op: &'static str, arg: usize },
    /// A widening cast writes wider elements than it reads.
    WideningCast { op: &'static str },
}

/// How a rename explains a target it could not place.
#[derive(Clone, Copy)]
enum RenameKind {
    Carry,
    Rename,
}

impl RenameKind {
    fn cause(self, target: VarId, source: Option<VarId>, at: Span) -> Cause {
        match self {
            RenameKind::Carry => Cause::CarryNotInPlace {
                iter_arg: target,
                yielded: source,
                at,
            },
            RenameKind::Rename => Cause::RenameNotInPlace { target, source, at },
        }
    }
}

/// A read that sees the wrong value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueViolation {
    /// The tile the read expects.
    pub lost: VarId,
    /// The operand that reads it.
    pub read: Span,
    /// What destroyed it or kept it away; `None` when nothing ever placed it there.
    pub cause: Option<Cause>,
    /// The bytes the read expected it on (a view at a loop-indexed offset: this iteration's).
    pub bytes: Option<(i64, i64)>,
}

/// Runs the value checker over one planned function; no violation means every read sees its
/// value.
pub fn check(f: &Function, opts: &VerifyOptions) -> Vec<ValueViolation> {
    analyse(f, opts).1
}

/// A value's first failing read, why it failed, and the bytes it read.
type Explained = (Span, Option<Cause>, (i64, i64));

/// A violation as a diagnostic, with the two tiles a repair has to separate for a clobber.
pub(super) type LocatedViolation = (Worded, Option<(VarId, VarId)>);

/// The facts, the violations to report, and every name of a datum some read found missing (a
/// value lost only because another was is not reported, but it is lost).
fn analyse(f: &Function, opts: &VerifyOptions) -> (Facts, Vec<ValueViolation>, Vec<VarId>) {
    Analysis::of(f, opts).into_parts()
}

/// The value checker on one function, in stages: the fast pass finds which values are lost;
/// the focused passes explain them region by region (each region's explanation is its own,
/// [`explain`]), so a caller that asks about some values explains only their regions first.
pub(super) struct Analysis<'f> {
    f: &'f Function,
    facts: Facts,
    /// Each value some read found missing, with the read, in the order the reads failed.
    lost: Vec<(VarId, Span)>,
    /// Indexed by `VarId`: whether the value is in `lost`.
    seen: Vec<bool>,
    /// The lost values of the regions not explained yet, by region.
    unexplained: Vec<(u32, SmallVec<[VarId; 4]>)>,
    explained: FxHashMap<VarId, Explained>,
}

impl<'f> Analysis<'f> {
    pub(super) fn of(f: &'f Function, opts: &VerifyOptions) -> Analysis<'f> {
        let facts = Facts::of(f, opts);
        let mut fast = Interp::new(f, &facts, None);
        fast.run();
        let mut lost: Vec<(VarId, Span)> = Vec::new();
        let mut seen = vec![false; f.vars.len()];
        for found in &fast.found {
            if !std::mem::replace(&mut seen[found.var.index()], true) {
                lost.push((found.var, found.read));
            }
        }
        let unexplained = lost_by_region(&facts, &lost);
        drop(fast);
        Analysis {
            f,
            facts,
            lost,
            seen,
            unexplained,
            explained: FxHashMap::default(),
        }
    }

    /// Explains the values lost in the regions `now` picks (by their lost values).
    fn explain_regions(&mut self, now: impl Fn(&[VarId]) -> bool) {
        let (regions, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.unexplained)
            .into_iter()
            .partition(|(_, values)| now(values));
        self.unexplained = later;
        let explained = explain(self.f, &self.facts, regions);
        self.explained.extend(explained);
    }

    /// Whether a reported finding ([`findings`]) surely names a clobber of a lost value
    /// `victim` accepts by a writer `pair` accepts (with that value), decided from the regions
    /// of such values alone. `false` too where they do not decide it: a match so late among
    /// the lost values that the findings reported before it, which the other regions'
    /// explanations decide, might fill the [`MAX_REPORTED`] a function reports.
    pub(super) fn surely_reports_clobber(
        &mut self,
        victim: &dyn Fn(VarId) -> bool,
        pair: &dyn Fn(VarId, VarId) -> bool,
    ) -> bool {
        // The reads that write over the value they read come first, in the facts' order.
        let aliased = self.facts.read_while_written();
        let clobber = |v: &ValueViolation| match v.cause {
            Some(Cause::ReadWhileWritten { writer, .. }) => victim(v.lost) && pair(v.lost, writer),
            _ => false,
        };
        if aliased.iter().take(MAX_REPORTED).any(clobber) {
            return true;
        }
        let candidates: Vec<usize> = (0..self.lost.len())
            .filter(|&i| victim(self.lost[i].0))
            .collect();
        if candidates.is_empty() {
            return false;
        }
        self.explain_regions(|values| values.iter().any(|&v| victim(v)));
        for i in candidates {
            let value = self.lost[i].0;
            let Some(&(_, Some(Cause::Overwritten { writer, .. }), _)) = self.explained.get(&value)
            else {
                continue;
            };
            if !pair(value, writer) {
                continue;
            }
            // Reported when it is among the first: derived violations before it only move it up.
            if aliased.len() + i < MAX_REPORTED {
                return true;
            }
        }
        false
    }

    /// The facts, the violations to report, and every name of a lost datum ([`analyse`]).
    fn into_parts(mut self) -> (Facts, Vec<ValueViolation>, Vec<VarId>) {
        self.explain_regions(|_| true);
        let Analysis {
            f,
            facts,
            lost,
            seen,
            explained,
            ..
        } = self;
        let violations: Vec<ValueViolation> = lost
            .iter()
            .map(|&(value, read)| {
                let (read, cause, bytes) = match explained.get(&value) {
                    Some(&(read, cause, bytes)) => (read, cause, Some(bytes)),
                    None => (read, None, None),
                };
                ValueViolation {
                    lost: value,
                    read,
                    cause,
                    bytes,
                }
            })
            .collect();
        // A rename of a lost value, or a carry of a lost yield, is lost because of it.
        let derived = |v: &ValueViolation| {
            let source = match v.cause {
                Some(Cause::RenameNotInPlace { source, .. }) => source,
                Some(Cause::CarryNotInPlace { yielded, .. }) => yielded,
                _ => None,
            };
            source.is_some_and(|s| seen.get(s.index()).is_some_and(|&s| s))
        };
        let mut out: Vec<ValueViolation> =
            violations.iter().filter(|v| !derived(v)).cloned().collect();
        // Values lost only to each other (a carry of a view of itself) still make the plan wrong.
        if out.is_empty() {
            out.extend(violations.into_iter().take(1));
        }
        let aliased = facts.read_while_written();
        // Every name of a datum some read found missing (a view read in its source's place).
        let mut lost_data: Vec<u32> = lost
            .iter()
            .map(|&(value, _)| value)
            .chain(aliased.iter().map(|v| v.lost))
            .map(|value| facts.datum_of(value))
            .collect();
        lost_data.sort_unstable();
        lost_data.dedup();
        let lost: Vec<VarId> = (0..f.vars.len() as u32)
            .map(VarId)
            .filter(|&v| lost_data.binary_search(&facts.datum_of(v)).is_ok())
            .collect();
        out.splice(0..0, aliased);
        (facts, out, lost)
    }

    /// [`findings`] of the analysed function.
    pub(super) fn findings(self) -> (Vec<LocatedViolation>, Vec<VarId>) {
        let f = self.f;
        let (facts, violations, lost) = self.into_parts();
        let clobber = |v: &ValueViolation| match v.cause {
            Some(Cause::Overwritten { writer, .. } | Cause::ReadWhileWritten { writer, .. }) => {
                Some((v.lost, writer))
            }
            _ => None,
        };
        let mut out: Vec<_> = violations
            .iter()
            .take(MAX_REPORTED)
            .map(|v| (describe(f, &facts, v), clobber(v)))
            .collect();
        if violations.len() > MAX_REPORTED {
            out.push((more_lost(f, violations.len()), None));
        }
        (out, lost)
    }
}

/// The lost values grouped by the region each sits in, for the focused pass of that region
/// to explain: a focused pass per region explains every value lost there. It follows the
/// sources of lost views too: a view is missing where its source was overwritten, and says so.
fn lost_by_region(facts: &Facts, lost: &[(VarId, Span)]) -> Vec<(u32, SmallVec<[VarId; 4]>)> {
    let mut by_region: Vec<(u32, SmallVec<[VarId; 4]>)> = Vec::new();
    for &(lost_value, _) in lost {
        let mut value = lost_value;
        while let Some(place) = facts.places[value.index()] {
            match by_region.iter_mut().find(|(r, _)| *r == place.region) {
                Some((_, values)) if values.contains(&value) => break,
                Some((_, values)) => values.push(value),
                None => by_region.push((place.region, SmallVec::from_elem(value, 1))),
            }
            match facts.effects.get(value.index()) {
                Some(Effect::Rename(Some(source)))
                    if facts.datum_of(*source) == facts.datum_of(value) =>
                {
                    value = *source;
                }
                _ => break,
            }
        }
    }
    by_region
}

/// Per lost value (grouped by the region it sits in): its first failing read in the focused
/// pass of its region, why, and the bytes it read. One interpretation follows every region at
/// once: regions share nothing but the statements and scalars (a pass that follows one region
/// sees the others empty), so each region's cells, and so each value's first failing read, are
/// what a pass of its own would give; a loop keeps each region at its own fixpoint once it is
/// reached, while others still change ([`Interp::for_loop`]).
fn explain(
    f: &Function,
    facts: &Facts,
    by_region: Vec<(u32, SmallVec<[VarId; 4]>)>,
) -> FxHashMap<VarId, Explained> {
    let mut explained: FxHashMap<VarId, Explained> = FxHashMap::default();
    if by_region.is_empty() {
        return explained;
    }
    let mut focused = Interp::new(f, facts, Some(Foci::new(by_region)));
    focused.run();
    for found in focused.found {
        explained
            .entry(found.var)
            .or_insert((found.read, found.cause, found.bytes));
    }
    explained
}

/// The violations as located diagnostics.
/// [`diagnostics`] with, for a value another tile's write destroyed, `(lost, writer)`: the
/// two tiles a repair has to separate (a repair checks again, so the first reported suffice).
pub(super) fn findings(f: &Function, opts: &VerifyOptions) -> (Vec<LocatedViolation>, Vec<VarId>) {
    Analysis::of(f, opts).findings()
}

pub(super) fn diagnostics(f: &Function, opts: &VerifyOptions) -> Vec<Diagnostic> {
    let found = findings(f, opts).0.into_iter();
    found.map(|(worded, _)| worded.by_name(f)).collect()
}

fn more_lost(f: &Function, violations: usize) -> Worded {
    Worded::error(
        codes::VALUE_LOST,
        format!(
            "{} more values in function '{}' are read where they are not; only the first {MAX_REPORTED} are reported",
            violations - MAX_REPORTED,
            f.name
        ),
        f.span,
    )
}

fn describe(f: &Function, facts: &Facts, v: &ValueViolation) -> Worded {
    // Point at the defined name itself when the parser recorded it, else at its statement.
    let def = |id: VarId| {
        let name = var(f, id).map(|v| v.span).filter(|s| s.start < s.end);
        name.or_else(|| facts.defs.get(id.index()).copied().flatten())
            .unwrap_or(f.span)
    };
    let lost = Tile(v.lost);
    let place = facts.places[v.lost.index()].map_or_else(String::new, |p| {
        let p = match v.bytes {
            Some((start, end)) => Place { start, end, ..p },
            None => p,
        };
        format!(
            " {} of '{}'",
            p.bytes_text(),
            facts.region_names[p.region as usize]
        )
    });
    // A tile the finding may not know, said in its place.
    let tile_or = |v: Option<VarId>, instead: &str| match v {
        Some(v) => text![Tile(v)],
        None => Text::from(format!("'{instead}'")),
    };
    let (message, hint, cause) = match v.cause {
        Some(Cause::Overwritten { writer, at }) => {
            let writer = Tile(writer);
            (
                text![
                    lost,
                    format!(" is read here, but its bytes{place} were overwritten by "),
                    writer
                ],
                text![
                    writer,
                    " must not share bytes with ",
                    lost,
                    " while ",
                    lost,
                    " is still read; give one of them its own buffer"
                ],
                Some((at, text![writer, " is written over ", lost, " here"])),
            )
        }
        Some(Cause::CarryNotInPlace {
            iter_arg,
            yielded,
            at,
        }) => {
            let iter_arg = Tile(iter_arg);
            (
                text![
                    lost,
                    format!(
                        " is read here, but its bytes{place} do not receive the value the loop carries into "
                    ),
                    iter_arg
                ],
                text!["the loop yields "]
                    .then(tile_or(yielded, "a value"))
                    .then(text![
                        " for ",
                        iter_arg,
                        " from other bytes; compute it in the iter arg's buffer or `tile.move` it there before the yield"
                    ]),
                Some((
                    at,
                    text!["the back edge carries "]
                        .then(tile_or(yielded, "a value"))
                        .then(text![" into ", iter_arg, " here"]),
                )),
            )
        }
        Some(Cause::RenameNotInPlace { target, source, at }) => {
            let target = Tile(target);
            let source = || tile_or(source, "its source");
            (
                text![
                    lost,
                    format!(" is read here, but its bytes{place} do not hold it: "),
                    target,
                    " takes the value of "
                ]
                .then(source())
                .then(", which sits elsewhere"),
                text![target, " shares its data with "]
                    .then(source())
                    .then(", so it must sit on the bytes ")
                    .then(source())
                    .then(" sits on"),
                Some((
                    at,
                    text![target, " takes the value of "]
                        .then(source())
                        .then(" here"),
                )),
            )
        }
        Some(Cause::ReadWhileWritten { writer, at, why }) => {
            let writer = Tile(writer);
            let why = match why {
                MustNotAlias::NotInPlaceSafe { op } => format!("`{op}` is not in-place safe"),
                MustNotAlias::ForbiddenArgument { op, arg } => {
                    format!("`{op}` must not write over its argument {arg}")
                }
                MustNotAlias::WideningCast { op } => {
                    format!("a widening `{op}` must not write over its source")
                }
            };
            (
                text![
                    lost,
                    " is read here by the op that writes ",
                    writer,
                    format!(
                        " over its bytes{place}, so the op reads values it is overwriting: {why}"
                    )
                ],
                text!["give ", writer, " a buffer that ", lost, " does not use"],
                Some((
                    at,
                    text![
                        writer,
                        " is written over ",
                        lost,
                        " here, while the op reads it"
                    ],
                )),
            )
        }
        None => (
            text![
                lost,
                format!(" is read here, but nothing placed it on its bytes{place}")
            ],
            text![lost, " must be written where its MemRef says it sits"],
            None,
        ),
    };
    let mut worded = Worded::error(codes::VALUE_LOST, message, v.read).with_hint(hint);
    worded.related.push(Related {
        span: def(v.lost),
        message: text![lost, " is defined here"],
    });
    worded
        .related
        .extend(cause.map(|(span, message)| Related { span, message }));
    worded
}

/// Where a tile sits: a byte range of one region. A symbolic offset with no source to take its
/// range from covers the whole region, `[i64::MIN, i64::MAX)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    region: u32,
    start: i64,
    end: i64,
    /// Where a write of the tile may reach: its MemRef's end, which a MemRef larger than the
    /// tile's data puts past `end` (an op may fill its whole MemRef, an Acc tile its aligned
    /// rows), so a write clobbers up to here but places its value only up to `end`.
    written_end: i64,
}

impl Place {
    fn bytes_text(&self) -> String {
        if self.start == i64::MIN {
            "(all, its offset being symbolic)".to_string()
        } else {
            format!("[{}, {})", self.start, self.end)
        }
    }
}

/// What the interpretation needs to know about every variable, computed once.
struct Facts {
    /// Indexed by `VarId`: the place of every on-chip tile.
    places: Vec<Option<Place>>,
    region_names: Vec<String>,
    /// Indexed by `VarId`: where each variable is defined.
    defs: Vec<Option<Span>>,
    /// The items `x = t[k]` taken from each tuple-valued call result `t`, which the call writes.
    tuple_items: FxHashMap<VarId, SmallVec<[VarId; 2]>>,
    /// The on-chip tile parameters, which hold their values on entry.
    params: Vec<VarId>,
    /// Indexed by `VarId`: a representative of the variables that name one datum, joined
    /// through views, aliases and in-place results (not through loop carries or `if` results,
    /// which name different values).
    datum: Vec<u32>,
    /// Indexed by `VarId`: what the assignment defining it does.
    effects: Vec<Effect>,
    /// The regions each loop and `if` (keyed by the statement's address) defines values in,
    /// sorted: the only regions its body can change.
    touched: FxHashMap<usize, SmallVec<[u32; 8]>>,
    /// The tiles each statement reads (its operands, yielded or returned values, loop header,
    /// condition), in source order: a range of `reads` per statement, the statements of one
    /// body in consecutive slots from the body's first ([`Facts::first_slot`]). Gathered once,
    /// since the interpretation runs loop bodies and focused passes again.
    stmt_reads: Vec<(u32, u32)>,
    reads: Vec<(VarId, Span)>,
    /// Each statement list's first slot, keyed by the list's address.
    body_slots: FxHashMap<usize, u32>,
    /// The ops whose outputs must not alias some of their inputs, in program order.
    must_not_alias: Vec<MustNotAliasOp>,
    /// The tiles whose bytes depend on scalars a loop run iteration by iteration knows:
    /// `places` holds what is true on every iteration, this how to narrow it on each.
    moving: FxHashMap<VarId, Moving>,
    /// The loops (keyed by the statement's address) run iteration by iteration, each with the
    /// values its variable takes: a view or a condition in them depends on the iteration.
    unrolled: FxHashMap<usize, Vec<i64>>,
    /// Indexed by `VarId`: the last statement, by number in walk order (from 1), that reads
    /// the variable or renames it (0: none); a use inside a loop begun after the variable's
    /// definition counts at that loop's last statement, as the next iteration uses it again.
    last_use: Vec<u32>,
    /// Each loop's number in walk order, keyed by the statement's address.
    loop_numbers: FxHashMap<usize, u32>,
}

/// Where a row-major slice's window sits in its source, given its offsets: it starts
/// `Σ offsets[k] · strides[k]` elements of `bits` bits into the source and spans `extent`.
#[derive(Clone, Debug)]
struct SliceGeometry {
    strides: SmallVec<[i64; 2]>,
    extent: i64,
    bits: i64,
}

impl SliceGeometry {
    /// The window's place in `source` where `scalars` give every offset; `None` where one is
    /// unknown, or the window leaves its source (a bad slice reads all of its source).
    fn place(&self, scalars: &Scalars, offsets: &[Expr], source: Place) -> Option<Place> {
        let mut first: i64 = 0;
        for (offset, stride) in offsets.iter().zip(&self.strides) {
            first = first.checked_add(scalars.eval(offset)?.checked_mul(*stride)?)?;
        }
        let start_bits = first.checked_mul(self.bits)?;
        let end_bits = first.checked_add(self.extent)?.checked_mul(self.bits)?;
        let start = source.start.checked_add(start_bits.div_euclid(8))?;
        let end = source.start.checked_add((end_bits + 7).div_euclid(8))?;
        (source.start <= start && end <= source.end).then_some(Place {
            start,
            end,
            written_end: end,
            ..source
        })
    }
}

/// How a tile's bytes follow from scalars known only on a given iteration.
#[derive(Clone, Debug)]
enum Moving {
    /// A `tile.slice` of `source` (row-major): its window starts `Σ offsets[k] · strides[k]`
    /// elements into the source and spans `extent` elements.
    Slice {
        source: VarId,
        offsets: SmallVec<[Expr; 2]>,
        geometry: SliceGeometry,
    },
    /// A tile at a MemRef offset computed from scalars: `data` bytes of its `size` hold its
    /// value (see [`tile_place`]); a view's are within its source's (`within`).
    Offset {
        offset: Expr,
        size: i64,
        data: Option<i64>,
        space: Option<MemSpace>,
        within: Option<VarId>,
    },
}

/// An op whose op-table row forbids its output to share bytes with some inputs.
struct MustNotAliasOp {
    /// Its output, or the tuple its items are taken from.
    output: VarId,
    /// The inputs it must not alias, each with where the op reads it.
    inputs: SmallVec<[(VarId, Span, MustNotAlias); 2]>,
    at: Span,
}

/// What an assignment does to the buffers.
#[derive(Clone, Copy, Debug)]
enum Effect {
    /// An op output written over its bytes.
    Write,
    /// An in-place result written over its input.
    InPlace(VarId),
    /// A tuple-valued call: writes every item extracted from it.
    WriteItems,
    /// A tuple item, written by the call that made the tuple.
    Item,
    /// A view or alias of its source (`None`: bound as it is).
    Rename(Option<VarId>),
}

impl Facts {
    /// The inputs ops read while they write their outputs over them: an output (every item of
    /// a tuple-valued op) whose written bytes meet those of an input its op-table row says it
    /// must not alias. Both are taken to their MemRef's end: the op may read its input's whole
    /// MemRef as it may fill its output's.
    fn read_while_written(&self) -> Vec<ValueViolation> {
        let mut out = Vec::new();
        for op in &self.must_not_alias {
            let single = [op.output];
            let outputs = match self.tuple_items.get(&op.output) {
                Some(items) => &items[..],
                None => &single[..],
            };
            for &(input, read, why) in &op.inputs {
                let Some(input_place) = self.places.get(input.index()).copied().flatten() else {
                    continue;
                };
                for &output in outputs {
                    let Some(place) = self.places.get(output.index()).copied().flatten() else {
                        continue;
                    };
                    if output != input
                        && place.region == input_place.region
                        && place.start < input_place.written_end
                        && input_place.start < place.written_end
                    {
                        out.push(ValueViolation {
                            lost: input,
                            bytes: None,
                            read,
                            cause: Some(Cause::ReadWhileWritten {
                                writer: output,
                                at: op.at,
                                why,
                            }),
                        });
                    }
                }
            }
        }
        out
    }

    /// The slot of `body`'s first statement (a list nothing was gathered for has none).
    fn first_slot(&self, body: &[Stmt]) -> usize {
        self.body_slots
            .get(&(body.as_ptr() as usize))
            .map_or(0, |&slot| slot as usize)
    }

    /// The tiles the statement in `slot` reads.
    fn reads_of(&self, slot: usize) -> &[(VarId, Span)] {
        let (start, end) = self.stmt_reads.get(slot).copied().unwrap_or((0, 0));
        &self.reads[start as usize..end as usize]
    }

    fn datum_of(&self, v: VarId) -> u32 {
        let mut at = v.0;
        while let Some(&up) = self.datum.get(at as usize) {
            if up == at {
                break;
            }
            at = up;
        }
        at
    }
}

/// Which bytes a definition's MemRef covers: its own, or (a view or alias, which takes its
/// source's value) only those within its source's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Covers {
    Own,
    WithinSource,
}

impl Facts {
    fn of(f: &Function, opts: &VerifyOptions) -> Facts {
        let mut facts = Facts {
            places: vec![None; f.vars.len()],
            region_names: Vec::new(),
            defs: vec![None; f.vars.len()],
            tuple_items: FxHashMap::default(),
            params: Vec::new(),
            datum: (0..f.vars.len() as u32).collect(),
            effects: vec![Effect::Write; f.vars.len()],
            touched: FxHashMap::default(),
            // Statements and reads are about as many as variables: sized for that, the lists
            // are seldom copied as they grow.
            stmt_reads: Vec::with_capacity(f.vars.len()),
            reads: Vec::with_capacity(f.vars.len()),
            body_slots: FxHashMap::default(),
            must_not_alias: Vec::new(),
            moving: FxHashMap::default(),
            unrolled: FxHashMap::default(),
            last_use: vec![0; f.vars.len()],
            loop_numbers: FxHashMap::default(),
        };
        let mut builder = FactsBuilder {
            f,
            addressed: opts.addressed_in(f),
            a5_target: opts.backend.is_a5(),
            facts: &mut facts,
            // Regions are mostly the allocs at the top level: room for one per statement
            // there, so the table does not grow (and rehash every name) on the way.
            regions: FxHashMap::with_capacity_and_hasher(f.body.len(), Default::default()),
            last_region: None,
            call_tuples: vec![false; f.vars.len()],
            open: Vec::new(),
            scalars: Scalars::new(f.vars.len()),
            // Made one by one: a `SmallVec` clone goes through `extend`, even an empty one.
            loop_deps: std::iter::repeat_with(LoopSet::new)
                .take(f.vars.len())
                .collect(),
            loops: Vec::new(),
            next_loop: 0,
            work: 0,
            number: 0,
            defined_at: vec![0; f.vars.len()],
        };
        for p in &f.params {
            builder.define(p.var, None, p.span, Covers::Own, None);
            if builder.facts.places[p.var.index()].is_some() {
                builder.facts.params.push(p.var);
            }
        }
        builder.stmts(&f.body);
        facts.keep_tile_reads();
        facts
    }

    /// Keeps only the reads of on-chip tiles (every place is known now), slot by slot.
    fn keep_tile_reads(&mut self) {
        let mut kept: Vec<(VarId, Span)> = Vec::with_capacity(self.reads.len());
        for slot in &mut self.stmt_reads {
            let start = kept.len() as u32;
            let uses = &self.reads[slot.0 as usize..slot.1 as usize];
            let tile = |v: VarId| self.places.get(v.index()).is_some_and(Option::is_some);
            kept.extend(uses.iter().filter(|(v, _)| tile(*v)));
            *slot = (start, kept.len() as u32);
        }
        self.reads = kept;
    }
}

struct FactsBuilder<'a> {
    f: &'a Function,
    addressed: bool,
    /// On an A5 target, a not-in-place-safe op may forbid only some arguments.
    a5_target: bool,
    facts: &'a mut Facts,
    regions: FxHashMap<&'a str, u32>,
    /// The region of the last tile defined, and its name.
    last_region: Option<(&'a str, u32)>,
    /// Indexed by `VarId`: tuple variables assigned a call's result.
    call_tuples: Vec<bool>,
    /// The regions touched so far by each loop or `if` being walked, innermost last.
    open: Vec<SmallVec<[u32; 8]>>,
    /// The scalars known on every path and iteration (literals and what is computed from them).
    scalars: Scalars,
    /// Indexed by `VarId`: the loops (by number) whose variable a scalar is computed from.
    loop_deps: Vec<LoopSet>,
    /// The loops being walked, innermost last.
    loops: Vec<OpenLoop>,
    next_loop: u32,
    /// Statements the interpretation runs so far (a loop run iteration by iteration counts
    /// its body once per iteration): what bounds unrolling.
    work: u64,
    /// The number of the statement being walked, in walk order from 1.
    number: u32,
    /// Indexed by `VarId`: the number of the statement that first defines it (0: a parameter,
    /// or a variable nothing defines: as if defined before every statement).
    defined_at: Vec<u32>,
}

/// Loops, by number in program order.
type LoopSet = SmallVec<[u32; 2]>;

/// A loop being walked by the facts builder.
struct OpenLoop {
    number: u32,
    /// Whether a view's bytes or a condition in its body depend on its variable.
    wanted: bool,
    work_before: u64,
    /// The loop statement's number in walk order ([`Facts::last_use`]).
    walk_number: u32,
    /// The variables defined before it that its body uses: used until its last statement.
    used_across: Vec<VarId>,
}

/// Loops with more iterations than this run to a fixpoint instead.
const MAX_UNROLLED_TRIPS: usize = 256;
/// The most statements unrolling may make the interpretation run in one function.
const MAX_UNROLLED_WORK: u64 = 200_000;

/// The values of the yield that ends a statement list, and where it is.
type YieldFact = (SmallVec<[Option<VarId>; 2]>, Span);

impl<'a> FactsBuilder<'a> {
    /// Records what the statement in `slot` reads, as the interpretation reads it.
    fn gather_reads(&mut self, slot: usize, stmt: &Stmt) {
        let reads = &mut self.facts.reads;
        let start = reads.len() as u32;
        let mut slice_source = None;
        let mut read = |e: &Expr| e.for_each_var_use(&mut |v, span| reads.push((v, span)));
        match &stmt.kind {
            // A slice reads nothing itself: its window is read where the slice is used (its
            // name stands only where its source's value does).
            StmtKind::Assign { value: e, .. } if e.call_role() == Some(OpRole::Slice) => {
                if let ExprKind::Call(_, call) = &e.kind {
                    call.args.iter().skip(1).for_each(read);
                    slice_source = call.args.first().and_then(Expr::as_var);
                }
            }
            StmtKind::Assign { value: e, .. } | StmtKind::Eval(e) => read(e),
            StmtKind::Yield { values } | StmtKind::Return { values } => {
                values.iter().for_each(read);
            }
            StmtKind::For(for_stmt) => {
                let header = for_stmt.bounds.iter().chain(&for_stmt.init_values);
                header
                    .chain(for_stmt.kwargs.iter().map(|k| &k.value))
                    .for_each(read);
            }
            StmtKind::If(if_stmt) => read(&if_stmt.cond),
            StmtKind::With(with) => read(&with.context),
            StmtKind::Pass => {}
        }
        let end = self.facts.reads.len() as u32;
        self.facts.stmt_reads[slot] = (start, end);
        for k in start..end {
            self.used(self.facts.reads[k as usize].0);
        }
        // A slice renames its source's window: a use of the source all the same.
        slice_source.inspect(|&v| self.used(v));
    }

    /// `v` is used by the statement being walked: [`Facts::last_use`].
    fn used(&mut self, v: VarId) {
        let Some(&defined) = self.defined_at.get(v.index()) else {
            return;
        };
        // The outermost loop begun after the definition uses it on every iteration.
        if let Some(open) = self.loops.iter_mut().find(|l| l.walk_number > defined) {
            open.used_across.push(v);
            return;
        }
        let last = &mut self.facts.last_use[v.index()];
        *last = (*last).max(self.number);
    }

    fn stmts(&mut self, body: &'a [Stmt]) -> Option<YieldFact> {
        let mut last_yield = None;
        let first = self.facts.stmt_reads.len();
        if !body.is_empty() {
            self.facts
                .body_slots
                .insert(body.as_ptr() as usize, first as u32);
            self.facts.stmt_reads.resize(first + body.len(), (0, 0));
        }
        for (i, stmt) in body.iter().enumerate() {
            self.number += 1;
            self.gather_reads(first + i, stmt);
            self.work += 1;
            match &stmt.kind {
                StmtKind::Assign { target, value } => self.assign(*target, value, stmt.span),
                StmtKind::Yield { values } => {
                    last_yield = Some((values.iter().map(Expr::as_var).collect(), stmt.span));
                }
                StmtKind::For(for_stmt) => {
                    self.open.push(SmallVec::new());
                    let number = self.next_loop;
                    self.next_loop += 1;
                    if let Some(loop_var) = for_stmt.loop_var
                        && let Some(deps) = self.loop_deps.get_mut(loop_var.index())
                    {
                        *deps = SmallVec::from_elem(number, 1);
                    }
                    self.loops.push(OpenLoop {
                        number,
                        wanted: false,
                        work_before: self.work,
                        walk_number: self.number,
                        used_across: Vec::new(),
                    });
                    self.facts.loop_numbers.insert(stmt_key(stmt), self.number);
                    for (i, &iter_arg) in for_stmt.iter_args.iter().enumerate() {
                        let init = for_stmt.init_values.get(i).and_then(Expr::as_var);
                        self.define(iter_arg, init, stmt.span, Covers::Own, None);
                    }
                    self.stmts(&for_stmt.body);
                    for (i, &result) in for_stmt.return_vars.iter().enumerate() {
                        let iter_arg = for_stmt.iter_args.get(i).copied();
                        // The result takes the iter arg's value as the loop exits.
                        iter_arg.inspect(|&v| self.used(v));
                        self.define(result, iter_arg, stmt.span, Covers::Own, None);
                    }
                    self.close_loop(stmt, for_stmt);
                    self.close(stmt);
                }
                StmtKind::If(if_stmt) => {
                    let deps = self.deps_of(&if_stmt.cond);
                    self.want(&deps);
                    self.open.push(SmallVec::new());
                    let then_yield = self.stmts(&if_stmt.then_body);
                    if let Some(else_body) = &if_stmt.else_body {
                        self.stmts(else_body);
                    }
                    for (i, &result) in if_stmt.return_vars.iter().enumerate() {
                        let (source, at) = match &then_yield {
                            Some((values, at)) => (values.get(i).copied().flatten(), *at),
                            None => (None, stmt.span),
                        };
                        self.define(result, source, at, Covers::Own, None);
                    }
                    self.close(stmt);
                }
                StmtKind::With(with) => {
                    if let Some(y) = self.stmts(&with.body) {
                        last_yield = Some(y);
                    }
                }
                StmtKind::Eval(_) | StmtKind::Return { .. } | StmtKind::Pass => {}
            }
        }
        last_yield
    }

    /// An assignment's effect on its target's data (a rename, an in-place write, a write, a
    /// tuple or one of its items), and where its target is defined.
    fn assign(&mut self, target: VarId, value: &'a Expr, at: Span) {
        self.note_scalar(target, value);
        let effect = match &value.kind {
            ExprKind::Var(src) => Effect::Rename(Some(*src)),
            ExprKind::Call(_, call) => {
                let info = value.call_info();
                let is_tuple =
                    var(self.f, target).is_some_and(|v| matches!(v.ty, Some(Type::Tuple(_))));
                let input = info
                    .and_then(|info| info.reuses_input)
                    .and_then(|k| call.args.get(k))
                    .and_then(Expr::as_var);
                self.record_must_not_alias(target, value, call, at);
                if info.is_some_and(|info| info.view) {
                    Effect::Rename(call.args.first().and_then(Expr::as_var))
                } else if is_tuple {
                    if let Some(slot) = self.call_tuples.get_mut(target.index()) {
                        *slot = true;
                    }
                    Effect::WriteItems
                } else if let Some(input) = input {
                    Effect::InPlace(input)
                } else {
                    Effect::Write
                }
            }
            ExprKind::Index { base, .. } => match base.as_var() {
                Some(tuple) if self.call_tuples.get(tuple.index()) == Some(&true) => {
                    self.facts
                        .tuple_items
                        .entry(tuple)
                        .or_default()
                        .push(target);
                    Effect::Item
                }
                _ => Effect::Rename(None),
            },
            _ => Effect::Write,
        };
        let (source, covers) = match effect {
            Effect::Rename(source) => (source, Covers::WithinSource),
            _ => (None, Covers::Own),
        };
        match effect {
            Effect::Rename(Some(source)) | Effect::InPlace(source) => {
                self.same_datum(target, source);
            }
            _ => {}
        }
        if let Some(slot) = self.facts.effects.get_mut(target.index()) {
            *slot = effect;
        }
        let slice = match &value.kind {
            ExprKind::Call(_, call) if value.call_role() == Some(OpRole::Slice) => Some(&**call),
            _ => None,
        };
        self.define(target, source, at, covers, slice);
    }

    /// A scalar assignment: its value where it is known on every path and iteration, and
    /// the loops whose variable it is computed from.
    fn note_scalar(&mut self, target: VarId, value: &Expr) {
        let is_tile = var(self.f, target).is_some_and(|v| matches!(v.ty, Some(Type::Tile(_))));
        if is_tile {
            return;
        }
        let known = self.scalars.eval(value);
        self.scalars.set(target, known);
        let deps = self.deps_of(value);
        if let Some(slot) = self.loop_deps.get_mut(target.index()) {
            *slot = deps;
        }
    }

    /// The loops whose variables `e` is computed from.
    fn deps_of(&self, e: &Expr) -> LoopSet {
        let mut deps = LoopSet::new();
        e.for_each_var_use(&mut |v, _| {
            for &number in self.loop_deps.get(v.index()).map_or(&[][..], |d| &d[..]) {
                if !deps.contains(&number) {
                    deps.push(number);
                }
            }
        });
        deps
    }

    /// The loops in `deps` are worth running iteration by iteration.
    fn want(&mut self, deps: &[u32]) {
        for open in &mut self.loops {
            if deps.contains(&open.number) {
                open.wanted = true;
            }
        }
    }

    /// Decides whether the loop `stmt` runs iteration by iteration: when something in it
    /// depends on its variable, its trip count is known and small, and the work stays bounded.
    fn close_loop(&mut self, stmt: &Stmt, for_stmt: &ForStmt) {
        let Some(open) = self.loops.pop() else {
            return;
        };
        // The statement walked last is the loop's last.
        for &v in &open.used_across {
            let last = &mut self.facts.last_use[v.index()];
            *last = (*last).max(self.number);
        }
        let body_work = self.work - open.work_before;
        let sequential = matches!(for_stmt.kind, LoopKind::Range | LoopKind::Unroll);
        let values = (open.wanted && sequential && for_stmt.loop_var.is_some())
            .then(|| range_values(&self.scalars, &for_stmt.bounds, MAX_UNROLLED_TRIPS))
            .flatten();
        // A fixpoint runs a body about twice.
        let mut trips = 2;
        if let Some(values) = values {
            let unrolled = open.work_before + values.len() as u64 * body_work;
            if unrolled <= MAX_UNROLLED_WORK {
                trips = values.len() as u64;
                self.facts.unrolled.insert(stmt_key(stmt), values);
            }
        }
        self.work = open.work_before + trips * body_work;
    }

    /// Records the inputs the call `value` (defining `target`) must not write over, as its
    /// op-table row says: every variable argument of an op that is not in-place safe (on an A5
    /// target only the arguments the row names), the arguments it forbids, and the source of
    /// a widening cast. The input the output reuses ("output reuses input k") is never one.
    fn record_must_not_alias(&mut self, target: VarId, value: &Expr, call: &Call, at: Span) {
        // An op the table does not list is in-place safe and forbids nothing.
        let (Some(info), ExprKind::Call(known, _)) = (value.call_info(), &value.kind) else {
            return;
        };
        let Some(op) = known.row().map(|row| row.name) else {
            return;
        };
        let arg = |k: usize| call.args.get(k).and_then(|a| Some((a.as_var()?, a.span)));
        let mut inputs: SmallVec<[(VarId, Span, MustNotAlias); 2]> = SmallVec::new();
        let mut forbid = |k: usize, why: MustNotAlias| {
            if info.reuses_input != Some(k)
                && let Some((v, span)) = arg(k)
            {
                inputs.push((v, span, why));
            }
        };
        if info.not_inplace_safe {
            let why = MustNotAlias::NotInPlaceSafe { op };
            match info.a5_forbidden_args.filter(|_| self.a5_target) {
                Some(args) => args.iter().for_each(|&k| forbid(k, why)),
                None => (0..call.args.len()).for_each(|k| forbid(k, why)),
            }
        } else {
            for &k in info.forbid {
                forbid(k, MustNotAlias::ForbiddenArgument { op, arg: k });
            }
        }
        if value.call_role() == Some(OpRole::Cast) {
            let bits = |v: VarId| match &var(self.f, v)?.ty {
                Some(Type::Tile(t)) => Some(t.dtype.bits()),
                Some(Type::Tensor(t)) => Some(t.dtype.bits()),
                _ => None,
            };
            if let Some((source, _)) = arg(0)
                && let (Some(out_bits), Some(in_bits)) = (bits(target), bits(source))
                && out_bits > in_bits
            {
                forbid(0, MustNotAlias::WideningCast { op });
            }
        }
        if !inputs.is_empty() {
            self.facts.must_not_alias.push(MustNotAliasOp {
                output: target,
                inputs,
                at,
            });
        }
    }

    /// Records the regions the loop or `if` `stmt` touched; they count for its parent too.
    fn close(&mut self, stmt: &Stmt) {
        let Some(mut touched) = self.open.pop() else {
            return;
        };
        touched.sort_unstable();
        touched.dedup();
        if let Some(parent) = self.open.last_mut() {
            parent.extend(touched.iter().copied());
        }
        self.facts.touched.insert(stmt_key(stmt), touched);
    }

    fn same_datum(&mut self, a: VarId, b: VarId) {
        let (ra, rb) = (self.facts.datum_of(a), self.facts.datum_of(b));
        if let Some(slot) = self.facts.datum.get_mut(ra as usize)
            && (rb as usize) < self.f.vars.len()
        {
            *slot = rb;
        }
    }

    /// Records where `v` is defined and, for an on-chip tile, the bytes its data occupies.
    /// A MemRef may be larger than its tile's data (the packer sizes a shared buffer's first
    /// tile by the buffer), so a tile covers at most its shape's bytes from its offset; a view
    /// or alias covers its MemRef's bytes within its source's. A symbolic offset takes its
    /// source's range (a runtime slice lies inside its source), else the whole region.
    fn define(
        &mut self,
        v: VarId,
        source: Option<VarId>,
        at: Span,
        covers: Covers,
        slice: Option<&Call>,
    ) {
        let Some(slot) = self.facts.defs.get_mut(v.index()) else {
            return;
        };
        if slot.is_none() {
            self.defined_at[v.index()] = self.number;
        }
        slot.get_or_insert(at);
        let f: &'a Function = self.f;
        let Some(variable) = var(f, v) else {
            return;
        };
        let Some(memref) = on_chip_memref(variable) else {
            return;
        };
        let tile = match &variable.ty {
            Some(Type::Tile(t)) => Some(t),
            _ => None,
        };
        let space = tile.and_then(|t| t.space);
        let region_name: &'a str = if self.addressed {
            space.unwrap_or(MemSpace::Ddr).name()
        } else {
            memref.base.as_str()
        };
        let region = self.region(region_name);
        if let Some(open) = self.open.last_mut() {
            open.push(region);
        }
        let source_place = source
            .and_then(|s| self.facts.places.get(s.index()).copied().flatten())
            .filter(|p| p.region == region);
        if let (Some(call), Some(src), Some(source)) = (slice, source_place, source) {
            // A Vec slice's bytes are its source's at the slice operands' offset, whatever its
            // MemRef prints: AllocateMemoryAddr prints a dynamic slice at its source's bare
            // address (PTO places the window from the operands).
            if space == Some(MemSpace::Vec)
                && let Some((offsets, geometry)) = self.slice_window(call, source)
            {
                let place = match geometry.place(&self.scalars, offsets, src) {
                    Some(place) => place,
                    None => {
                        self.depend_on_iteration(v, offsets, || Moving::Slice {
                            source,
                            offsets: offsets.iter().cloned().collect(),
                            geometry,
                        });
                        src
                    }
                };
                self.facts.places[v.index()] = Some(place);
                return;
            }
            // Elsewhere only a slice at a known offset prints where it is.
            let offsets = call.args.get(2);
            if self.addressed && offsets.is_some_and(|o| self.scalars.eval_all(o).is_none()) {
                self.facts.places[v.index()] = Some(src);
                return;
            }
        }
        let size = memref.size_bytes();
        let offset = memref.offset();
        let start = memref
            .const_offset()
            .or_else(|| offset.and_then(|o| self.scalars.eval(o)));
        let data = tile.and_then(data_bytes);
        let place = match (start.zip(size), source_place) {
            (Some((start, size)), Some(src)) if covers == Covers::WithinSource => {
                let end = start.saturating_add(size);
                let clipped = (start.max(src.start), end.min(src.end));
                let (start, end) = if clipped.0 < clipped.1 {
                    clipped
                } else {
                    (start, end)
                };
                Place {
                    region,
                    start,
                    end,
                    written_end: end,
                }
            }
            (Some((start, size)), _) => tile_place(region, start, size, data, space),
            (None, source_place) => {
                if let (Some(offset), Some(size)) = (offset, size) {
                    let within = source_place
                        .and(source)
                        .filter(|_| covers == Covers::WithinSource);
                    self.depend_on_iteration(v, std::slice::from_ref(offset), || Moving::Offset {
                        offset: offset.clone(),
                        size,
                        data,
                        space,
                        within,
                    });
                }
                match source_place {
                    Some(src) => src,
                    None => Place {
                        region,
                        start: i64::MIN,
                        end: i64::MAX,
                        written_end: i64::MAX,
                    },
                }
            }
        };
        self.facts.places[v.index()] = Some(place);
    }

    /// The number of the region named `name`, numbered as first met.
    fn region(&mut self, name: &'a str) -> u32 {
        // Consecutive tiles mostly share a base: compare with the last one before hashing.
        if let Some((last, region)) = self.last_region
            && last == name
        {
            return region;
        }
        let next = self.regions.len() as u32;
        let names = &mut self.facts.region_names;
        let region = *self.regions.entry(name).or_insert_with(|| {
            names.push(name.to_string());
            next
        });
        self.last_region = Some((name, region));
        region
    }

    /// The offsets of a `tile.slice` of `source` and where they place its window, from the
    /// static shapes.
    fn slice_window<'c>(
        &self,
        call: &'c Call,
        source: VarId,
    ) -> Option<(&'c [Expr], SliceGeometry)> {
        let Some(Type::Tile(src)) = &var(self.f, source)?.ty else {
            return None;
        };
        let src_shape: SmallVec<[i64; 4]> = src
            .shape
            .iter()
            .map(Expr::as_const_int)
            .collect::<Option<_>>()?;
        let list = |e: &'c Expr| match &e.kind {
            ExprKind::List(items) | ExprKind::Tuple(items) => Some(&items[..]),
            _ => None,
        };
        let shape = list(call.args.get(1)?)?;
        let offsets = list(call.args.get(2)?)?;
        if shape.len() != src_shape.len() || offsets.len() != src_shape.len() {
            return None;
        }
        let mut strides: SmallVec<[i64; 2]> = SmallVec::from_elem(1, src_shape.len());
        for k in (0..src_shape.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1].checked_mul(src_shape[k + 1])?;
        }
        let mut extent: i64 = 1;
        for (dim, stride) in shape.iter().zip(&strides) {
            let dim = dim.as_const_int()?;
            extent = extent.checked_add(dim.checked_sub(1)?.checked_mul(*stride)?)?;
        }
        let bits = i64::from(src.dtype.storage_bits());
        Some((
            offsets,
            SliceGeometry {
                strides,
                extent,
                bits,
            },
        ))
    }

    /// `v`'s bytes depend on the scalars in `operands`, not known on every iteration: the
    /// loops they are computed from are worth running iteration by iteration, and the
    /// interpretation narrows `v`'s place (`moving`) on each. Nothing when no loop is involved.
    fn depend_on_iteration(
        &mut self,
        v: VarId,
        operands: &[Expr],
        moving: impl FnOnce() -> Moving,
    ) {
        let mut deps = LoopSet::new();
        for e in operands {
            for number in self.deps_of(e) {
                if !deps.contains(&number) {
                    deps.push(number);
                }
            }
        }
        if deps.is_empty() {
            return;
        }
        self.want(&deps);
        self.facts.moving.insert(v, moving());
    }
}

/// Where a tile written at `start` sits: its data's bytes, at most its MemRef's `size`. A write
/// reaches further: in Vec its rows padded to the 32-byte blocks a vector op writes, elsewhere
/// (fractal layouts: an Acc or L0 tile fills whole fractal rows) its whole MemRef.
fn tile_place(
    region: u32,
    start: i64,
    size: i64,
    data: Option<i64>,
    space: Option<MemSpace>,
) -> Place {
    let data = data.map_or(size, |d| d.min(size));
    let end = start.saturating_add(data);
    let written = match space {
        Some(MemSpace::Vec) => data.saturating_add(31) / 32 * 32,
        _ => size,
    };
    Place {
        region,
        start,
        end,
        written_end: start.saturating_add(written.min(size)).max(end),
    }
}

impl Moving {
    /// Its place where `scalars` give its offset; `source` is where a slice's source sits (for
    /// an offset, the tile's own place on every iteration, for its region).
    fn place(&self, scalars: &Scalars, source: Place) -> Option<Place> {
        match self {
            Moving::Slice {
                offsets, geometry, ..
            } => geometry.place(scalars, offsets, source),
            Moving::Offset {
                offset,
                size,
                data,
                space,
                ..
            } => {
                let start = scalars.eval(offset)?;
                Some(tile_place(source.region, start, *size, *data, *space))
            }
        }
    }
}

/// A loop's or `if`'s key in [`Facts::touched`].
fn stmt_key(stmt: &Stmt) -> usize {
    std::ptr::from_ref(stmt) as usize
}

/// The bytes a tile's data takes: its static shape's elements at the dtype's storage width.
fn data_bytes(tile: &TileType) -> Option<i64> {
    let mut elements: i64 = 1;
    for dim in tile.shape.iter() {
        elements = elements.checked_mul(dim.as_const_int()?)?;
    }
    let bits = elements.checked_mul(i64::from(tile.dtype.storage_bits()))?;
    Some((bits + 7) / 8)
}

/// The values a cell's bytes hold, sorted.
type ValueSet = SmallVec<[VarId; 4]>;

#[derive(Debug, PartialEq)]
struct Cell {
    start: i64,
    end: i64,
    values: ValueSet,
    /// In a focused pass: why focus values are not here (none for a focus value that is, or
    /// never was).
    causes: Causes,
}

/// Focus values and why each is missing, sorted by value.
type Causes = Vec<(VarId, Cause)>;

impl Clone for Cell {
    /// The values copied at once: a derived `SmallVec` clone runs `extend`, value by value,
    /// and the interpretation copies the cells of every region an `if` or a loop touches.
    fn clone(&self) -> Cell {
        Cell {
            start: self.start,
            end: self.end,
            values: ValueSet::from_slice(&self.values),
            causes: self.causes.clone(),
        }
    }
}

impl Cell {
    fn holds(&self, v: VarId) -> bool {
        self.values.binary_search(&v).is_ok()
    }
    fn insert(&mut self, v: VarId) {
        if let Err(at) = self.values.binary_search(&v) {
            self.values.insert(at, v);
        }
    }
    fn remove(&mut self, v: VarId) {
        if let Ok(at) = self.values.binary_search(&v) {
            self.values.remove(at);
        }
    }
    /// Whether the cell says nothing: no values and no cause; such cells are dropped.
    fn is_blank(&self) -> bool {
        self.values.is_empty() && self.causes.is_empty()
    }
    fn cause(&self, v: VarId) -> Option<Cause> {
        cause_in(&self.causes, v)
    }
    fn set_cause(&mut self, v: VarId, cause: Option<Cause>) {
        set_cause_in(&mut self.causes, v, cause);
    }
}

/// Cells per region.
#[derive(Clone, Debug, Default)]
struct State {
    regions: Vec<Vec<Cell>>,
}

/// A read that found its value missing.
struct Found {
    var: VarId,
    read: Span,
    cause: Option<Cause>,
    bytes: (i64, i64),
}

struct Interp<'f> {
    f: &'f Function,
    facts: &'f Facts,
    /// The scalars known where the interpretation is (a loop run iteration by iteration
    /// knows its variable).
    scalars: Scalars,
    /// Indexed by `VarId`: where a tile of [`Facts::moving`] sits on this iteration, when its
    /// offset is known here.
    moved: Vec<Option<Place>>,
    /// In a focused pass: the values whose causes it follows.
    focus: Option<Foci>,
    found: Vec<Found>,
    /// A focused pass stops once each focus value has failed a read.
    done: bool,
    /// For each iteration of a loop run iteration by iteration that is running (the
    /// innermost last), what it decided from the scalars so far, in order
    /// ([`Interp::iterations`]).
    traces: Vec<Vec<Decision<'f>>>,
}

/// What an iteration decides from the scalars it knows: replayed on the next value of the
/// loop variable, it tells whether that iteration does the same ([`Interp::iterations`]).
#[derive(Clone, Copy, Debug)]
enum Decision<'f> {
    /// A scalar assigned: its value follows the scalars.
    Scalar(VarId, &'f Expr),
    /// A loop variable set, to a value or to none.
    LoopVar(VarId, Option<i64>),
    /// An `if` condition, and the arm it selects (`None`: unknown, both run).
    Arm(&'f Expr, Option<bool>),
    /// A tile of [`Facts::moving`] placed: where it sat, and where it sits now.
    Moved {
        tile: VarId,
        before: Option<Place>,
        now: Option<Place>,
    },
}

/// The values a focused pass follows, each in its region, and which have failed a read. A
/// value is followed only in its own region: where a tile placed per iteration sits in
/// another, the pass of that region sees it as any other tile.
struct Foci {
    /// The regions followed, sorted, each with its values (sorted).
    regions: SmallVec<[(u32, SmallVec<[VarId; 4]>); 2]>,
    /// Every followed value, sorted, with its region and whether it has failed a read.
    values: SmallVec<[(VarId, u32, bool); 8]>,
    pending: usize,
}

impl Foci {
    fn new(by_region: Vec<(u32, SmallVec<[VarId; 4]>)>) -> Foci {
        let mut regions: SmallVec<[(u32, SmallVec<[VarId; 4]>); 2]> = by_region.into();
        regions.sort_unstable_by_key(|&(r, _)| r);
        let mut values: SmallVec<[(VarId, u32, bool); 8]> = SmallVec::new();
        for (region, in_region) in &mut regions {
            in_region.sort_unstable();
            values.extend(in_region.iter().map(|&v| (v, *region, false)));
        }
        values.sort_unstable_by_key(|&(v, _, _)| v);
        Foci {
            pending: values.len(),
            regions,
            values,
        }
    }
    fn follows(&self, region: u32) -> bool {
        self.regions
            .binary_search_by_key(&region, |&(r, _)| r)
            .is_ok()
    }
    /// The values followed in `region`, sorted.
    fn in_region(&self, region: u32) -> &[VarId] {
        match self.regions.binary_search_by_key(&region, |&(r, _)| r) {
            Ok(i) => &self.regions[i].1,
            Err(_) => &[],
        }
    }
    /// `v`'s index among the values, when it is followed in `region`.
    fn index_in(&self, v: VarId, region: u32) -> Option<usize> {
        let i = self.values.binary_search_by_key(&v, |&(v, _, _)| v).ok()?;
        (self.values[i].1 == region).then_some(i)
    }
}

/// A rename: the target and where it takes its value from (`None`: bound as it is).
type Pair = (VarId, Option<VarId>);

/// Byte ranges `[start, end)` of one region.
type Ranges = SmallVec<[(i64, i64); 2]>;

impl<'f> Interp<'f> {
    fn new(f: &'f Function, facts: &'f Facts, focus: Option<Foci>) -> Interp<'f> {
        Interp {
            f,
            facts,
            scalars: Scalars::new(f.vars.len()),
            moved: vec![
                None;
                if facts.moving.is_empty() {
                    0
                } else {
                    f.vars.len()
                }
            ],
            focus,
            found: Vec::new(),
            done: false,
            traces: Vec::new(),
        }
    }

    fn run(&mut self) {
        let mut state = State {
            regions: vec![Vec::new(); self.facts.region_names.len()],
        };
        let params: SmallVec<[Pair; 4]> = self.facts.params.iter().map(|&p| (p, None)).collect();
        self.rename(&mut state, &params, RenameKind::Rename, self.f.span);
        self.stmts(&mut state, &self.f.body);
    }

    /// Where `v` sits, if this pass follows it: a focused pass follows only the focus values'
    /// regions, as no other region's contents can change where they are.
    fn place(&self, v: VarId) -> Option<Place> {
        let place = self.located(v)?;
        match &self.focus {
            Some(foci) if !foci.follows(place.region) => None,
            _ => Some(place),
        }
    }

    /// Where `v` sits here: on this iteration, or on every one.
    fn located(&self, v: VarId) -> Option<Place> {
        match self.moved.get(v.index()).copied().flatten() {
            Some(place) => Some(place),
            None => self.facts.places.get(v.index()).copied().flatten(),
        }
    }

    /// Narrows the place of a tile of [`Facts::moving`] being defined to this iteration's (or
    /// widens it back where its offset is not known here); its name leaves its old place.
    fn place_moving(&mut self, state: &mut State, v: VarId) {
        let Some(moving) = self.facts.moving.get(&v) else {
            return;
        };
        let own = self.facts.places.get(v.index()).copied().flatten();
        let now = self.moving_place(moving, own);
        let Some(slot) = self.moved.get_mut(v.index()) else {
            return;
        };
        let before = std::mem::replace(slot, now);
        self.record(Decision::Moved {
            tile: v,
            before,
            now,
        });
        if let Some(old) = before.or(own).filter(|_| before != now)
            && self.focus.as_ref().is_none_or(|f| f.follows(old.region))
        {
            let cells = &mut state.regions[old.region as usize];
            let (lo, hi) = range_of(cells, old.start, old.end);
            for c in &mut cells[lo..hi] {
                c.remove(v);
            }
        }
    }

    /// Where a tile of [`Facts::moving`] whose place on every iteration is `own` sits on
    /// this one, from the scalars known here.
    fn moving_place(&self, moving: &Moving, own: Option<Place>) -> Option<Place> {
        match moving {
            Moving::Slice { source, .. } => self
                .located(*source)
                .and_then(|src| moving.place(&self.scalars, src)),
            Moving::Offset { within, .. } => {
                let place = own.and_then(|own| moving.place(&self.scalars, own));
                match within.and_then(|s| self.located(s)) {
                    Some(src) => place.map(|p| Place {
                        start: p.start.max(src.start),
                        end: p.end.min(src.end),
                        written_end: p.end.min(src.end),
                        ..p
                    }),
                    None => place,
                }
                .filter(|p| p.start < p.end)
            }
        }
    }

    /// Whether `v`, sitting in `region`, is a focus value there.
    fn is_focus_in(&self, v: VarId, region: u32) -> bool {
        self.focus
            .as_ref()
            .is_some_and(|foci| foci.index_in(v, region).is_some())
    }

    /// Whether `v` is an on-chip tile at all.
    fn is_tile(&self, v: VarId) -> bool {
        self.facts
            .places
            .get(v.index())
            .is_some_and(Option::is_some)
    }

    /// Runs a statement list; returns the yield that ends it, if any.
    fn stmts(&mut self, state: &mut State, body: &'f [Stmt]) -> Option<(&'f [Expr], Span)> {
        let mut yielded = None;
        let first = self.facts.first_slot(body);
        for (i, stmt) in body.iter().enumerate() {
            if self.done {
                return yielded;
            }
            // Every statement reads its operands (the loop header, the condition) first.
            for &(v, span) in self.facts.reads_of(first + i) {
                self.read(state, v, span);
            }
            match &stmt.kind {
                StmtKind::Assign { target, value } => {
                    if self.is_tile(*target) {
                        self.place_moving(state, *target);
                    } else {
                        let known = self.scalars.eval(value);
                        self.scalars.set(*target, known);
                        self.record(Decision::Scalar(*target, value));
                    }
                    self.assign(state, *target, stmt.span);
                }
                StmtKind::Eval(_) | StmtKind::Return { .. } | StmtKind::Pass => {}
                StmtKind::Yield { values } => yielded = Some((values.as_slice(), stmt.span)),
                StmtKind::For(for_stmt) => match self.facts.unrolled.get(&stmt_key(stmt)) {
                    Some(values) => self.iterations(state, stmt, for_stmt, values),
                    None => self.for_loop(state, stmt, for_stmt),
                },
                StmtKind::If(if_stmt) if let Some(taken) = self.scalars.eval(&if_stmt.cond) => {
                    // The condition is known here: only the arm it selects runs.
                    self.record(Decision::Arm(&if_stmt.cond, Some(taken != 0)));
                    let arm = if taken != 0 {
                        Some(&if_stmt.then_body)
                    } else {
                        if_stmt.else_body.as_ref()
                    };
                    let arm_yield = match arm {
                        Some(arm) => self.stmts(state, arm),
                        None => None,
                    };
                    self.bind_results(state, &if_stmt.return_vars, arm_yield, stmt.span);
                }
                StmtKind::If(if_stmt) => {
                    self.record(Decision::Arm(&if_stmt.cond, None));
                    let touched = self.touched(stmt);
                    // Only the regions the `if` touches differ between its arms.
                    let mut other: Vec<Vec<Cell>> = touched
                        .iter()
                        .map(|&r| state.regions[r as usize].clone())
                        .collect();
                    let then_yield = self.stmts(state, &if_stmt.then_body);
                    self.bind_results(state, &if_stmt.return_vars, then_yield, stmt.span);
                    for (&r, cells) in touched.iter().zip(&mut other) {
                        std::mem::swap(&mut state.regions[r as usize], cells);
                    }
                    let else_yield = match &if_stmt.else_body {
                        Some(else_body) => self.stmts(state, else_body),
                        None => None,
                    };
                    self.bind_results(state, &if_stmt.return_vars, else_yield, stmt.span);
                    for (&r, then_cells) in touched.iter().zip(&other) {
                        let joined = self.join_region(r, then_cells, &state.regions[r as usize]);
                        state.regions[r as usize] = joined;
                    }
                }
                StmtKind::With(with) => {
                    if let Some(y) = self.stmts(state, &with.body) {
                        yielded = Some(y);
                    }
                }
            }
        }
        yielded
    }

    /// An `if` arm's results take the values the arm yields (an arm without a yield binds
    /// them as they are).
    fn bind_results(
        &mut self,
        state: &mut State,
        results: &[VarId],
        yielded: Option<(&[Expr], Span)>,
        if_span: Span,
    ) {
        if results.is_empty() {
            return;
        }
        let pairs = pairs(results, yielded.map(|(values, _)| values));
        let at = yielded.map_or(if_span, |(_, at)| at);
        self.rename(state, &pairs, RenameKind::Rename, at);
    }

    /// The regions `stmt` (a loop or an `if`) can change, as far as this pass follows them.
    fn touched(&self, stmt: &Stmt) -> SmallVec<[u32; 8]> {
        let all = self.facts.touched.get(&stmt_key(stmt));
        let follows = |r: &&u32| self.focus.as_ref().is_none_or(|f| f.follows(**r));
        all.map(|t| t.iter().filter(follows).copied().collect())
            .unwrap_or_default()
    }

    /// Runs a loop iteration by iteration, its variable taking each of `values` in turn: at
    /// each back edge the iter args take the values yielded for them.
    fn iterations(
        &mut self,
        state: &mut State,
        stmt: &'f Stmt,
        for_stmt: &'f ForStmt,
        values: &[i64],
    ) {
        let at = stmt.span;
        let inits = pairs(&for_stmt.iter_args, Some(&for_stmt.init_values));
        self.rename(state, &inits, RenameKind::Rename, at);
        // An iteration that leaves the state as it found it, run again from that state and
        // deciding the same, does the same: its reads fail as they did, and it changes nothing.
        // So once one does, the next iterations only replay its decisions on their values,
        // and run only where one decides otherwise.
        let touched = self.touched(stmt);
        let mut repeating: Option<Vec<Decision<'f>>> = None;
        for &value in values {
            if let Some(loop_var) = for_stmt.loop_var {
                self.scalars.set(loop_var, Some(value));
                self.record(Decision::LoopVar(loop_var, Some(value)));
            }
            if let Some(trace) = &repeating
                && self.replays(trace)
            {
                // The iteration replayed decided as the one recorded: the loops around it
                // record those decisions as its own.
                for recording in &mut self.traces {
                    recording.extend_from_slice(trace);
                }
                continue;
            }
            let head: Vec<Vec<Cell>> = touched
                .iter()
                .map(|&r| state.regions[r as usize].clone())
                .collect();
            self.traces.push(Vec::new());
            let ran = self.iteration(state, for_stmt, at);
            let trace = self.traces.pop().unwrap_or_default();
            if !ran {
                return;
            }
            let regions_kept = touched
                .iter()
                .zip(&head)
                .all(|(&r, cells)| same_cells(&state.regions[r as usize], cells));
            repeating = (regions_kept && self.placed_back(&trace)).then_some(trace);
        }
        if let Some(loop_var) = for_stmt.loop_var {
            self.scalars.set(loop_var, None);
            self.record(Decision::LoopVar(loop_var, None));
        }
        self.bind_loop_results(state, for_stmt, at);
    }

    /// Adds `decision` to the decisions of each iteration being recorded (of the loops run
    /// iteration by iteration around it).
    fn record(&mut self, decision: Decision<'f>) {
        for trace in &mut self.traces {
            trace.push(decision);
        }
    }

    /// Replays the decisions of an iteration on the scalars known now: whether each comes
    /// out the same. The scalars it sets are the iteration's; a tile it places is placed
    /// only where every decision comes out the same (else the iteration runs, from where
    /// its tiles sat).
    fn replays(&mut self, trace: &[Decision<'f>]) -> bool {
        let mut placed: SmallVec<[(VarId, Option<Place>); 4]> = SmallVec::new();
        let same = trace.iter().all(|decision| match *decision {
            Decision::Scalar(target, value) => {
                let known = self.scalars.eval(value);
                self.scalars.set(target, known);
                true
            }
            Decision::LoopVar(loop_var, value) => {
                self.scalars.set(loop_var, value);
                true
            }
            Decision::Arm(cond, arm) => self.scalars.eval(cond).map(|t| t != 0) == arm,
            Decision::Moved { tile, now, .. } => {
                let own = self.facts.places.get(tile.index()).copied().flatten();
                let moving = self.facts.moving.get(&tile);
                let again = moving.and_then(|moving| self.moving_place(moving, own));
                let Some(slot) = self.moved.get_mut(tile.index()) else {
                    return false;
                };
                placed.push((tile, std::mem::replace(slot, again)));
                again == now
            }
        });
        if !same {
            for (tile, before) in placed.into_iter().rev() {
                self.moved[tile.index()] = before;
            }
        }
        same
    }

    /// Whether every tile an iteration placed (its decisions `trace`) sits where it sat
    /// before the iteration.
    fn placed_back(&self, trace: &[Decision<'f>]) -> bool {
        let mut seen: SmallVec<[VarId; 4]> = SmallVec::new();
        trace.iter().all(|decision| match *decision {
            Decision::Moved { tile, before, .. } if !seen.contains(&tile) => {
                seen.push(tile);
                self.moved.get(tile.index()).copied().flatten() == before
            }
            _ => true,
        })
    }

    /// Runs the loop's body once, then its back edge: every iter arg takes the value yielded
    /// for it, all at once. `false` when a focused pass is done.
    fn iteration(&mut self, state: &mut State, for_stmt: &'f ForStmt, at: Span) -> bool {
        let yielded = self.stmts(state, &for_stmt.body);
        if self.done {
            return false;
        }
        let carries = pairs(&for_stmt.iter_args, yielded.map(|(values, _)| values));
        let yield_span = yielded.map_or(at, |(_, span)| span);
        self.rename(state, &carries, RenameKind::Carry, yield_span);
        true
    }

    /// Runs a loop to its fixpoint. Regions the loop does not touch stay as they are; the
    /// state of the others at the head is the join of the entry and the back edge. A focused
    /// pass keeps each region it follows at its own fixpoint once reached: each later pass of
    /// the body starts it there again (so its reads fail as on the pass that reached it, and
    /// it leaves the loop as it would have), which is what a pass following it alone gives.
    fn for_loop(&mut self, state: &mut State, stmt: &'f Stmt, for_stmt: &'f ForStmt) {
        let at = stmt.span;
        if let Some(loop_var) = for_stmt.loop_var {
            self.scalars.set(loop_var, None);
            self.record(Decision::LoopVar(loop_var, None));
        }
        let touched = self.touched(stmt);
        let inits = pairs(&for_stmt.iter_args, Some(&for_stmt.init_values));
        self.rename(state, &inits, RenameKind::Rename, at);
        if self.focus.is_none() {
            self.drop_unused(state, stmt, &touched);
        }
        let saved = |state: &State| -> Vec<Vec<Cell>> {
            touched
                .iter()
                .map(|&r| state.regions[r as usize].clone())
                .collect()
        };
        let entry = saved(state);
        // Violations count only on the pass that starts from the fixpoint: earlier passes
        // start from states that hold more. (A focused pass keeps the first it meets.)
        let mark = self.found.len();
        // The head of the first pass is the entry state.
        let mut later_head: Option<Vec<Vec<Cell>>> = None;
        // A focused pass: the regions at their fixpoint, with their state there.
        let mut settled: Vec<Option<Vec<Cell>>> = vec![None; touched.len()];
        loop {
            if self.focus.is_none() {
                self.found.truncate(mark);
            }
            let head = later_head.as_ref().unwrap_or(&entry);
            if !self.iteration(state, for_stmt, at) {
                return;
            }
            let mut fixpoint = true;
            // The regions this pass of the body brought to their fixpoint.
            let mut reached: SmallVec<[usize; 4]> = SmallVec::new();
            let regions = touched.iter().zip(&entry).zip(head).zip(&settled);
            for (k, (((&r, entry_cells), head_cells), settled)) in regions.enumerate() {
                let cells = &mut state.regions[r as usize];
                if let Some(at_fixpoint) = settled {
                    cells.clone_from(at_fixpoint);
                    continue;
                }
                let next = self.join_region(r, entry_cells, cells);
                if same_cells(&next, head_cells) {
                    reached.push(k);
                } else {
                    fixpoint = false;
                }
                *cells = next;
            }
            if fixpoint {
                break;
            }
            if self.focus.is_some() {
                for k in reached {
                    settled[k] = Some(state.regions[touched[k] as usize].clone());
                }
            }
            later_head = Some(saved(state));
        }
        self.bind_loop_results(state, for_stmt, at);
    }

    /// Drops from the regions a loop touches the values no statement uses from its head on
    /// ([`Facts::last_use`]): where they are decides no read, yet a body that writes over
    /// them would change the head and cost another pass over the body to reach the fixpoint.
    /// The tiles whose place moves with the iteration stay (a value may sit outside the place
    /// its tile has next). Only the fast pass drops them: a focused pass follows causes.
    fn drop_unused(&self, state: &mut State, stmt: &Stmt, touched: &[u32]) {
        let Some(&head) = self.facts.loop_numbers.get(&stmt_key(stmt)) else {
            return;
        };
        let unused = |v: VarId| {
            self.facts
                .last_use
                .get(v.index())
                .is_some_and(|&last| last <= head)
                && !self.facts.moving.contains_key(&v)
        };
        for &r in touched {
            let cells = &mut state.regions[r as usize];
            let mut dropped = false;
            for c in cells.iter_mut() {
                let held = c.values.len();
                c.values.retain(|v| !unused(*v));
                dropped |= c.values.len() != held;
            }
            if dropped {
                let len = cells.len();
                normalize(cells, 0, len);
            }
        }
    }

    /// A loop's results take its iter args' values as the loop exits.
    fn bind_loop_results(&mut self, state: &mut State, for_stmt: &ForStmt, at: Span) {
        let results: SmallVec<[Pair; 4]> = for_stmt
            .return_vars
            .iter()
            .enumerate()
            .map(|(i, &r)| (r, for_stmt.iter_args.get(i).copied()))
            .collect();
        self.rename(state, &results, RenameKind::Rename, at);
    }

    fn assign(&mut self, state: &mut State, target: VarId, at: Span) {
        let Some(&effect) = self.facts.effects.get(target.index()) else {
            return;
        };
        match effect {
            Effect::Rename(source) => {
                self.rename(state, &[(target, source)], RenameKind::Rename, at);
            }
            Effect::WriteItems => {
                if let Some(items) = self.facts.tuple_items.get(&target) {
                    self.write_all(state, items, at);
                }
            }
            Effect::InPlace(input) => {
                if let Some(place) = self.place(target) {
                    self.write_in_place(state, place, target, input, at);
                }
            }
            Effect::Write => self.write_all(state, &[target], at),
            Effect::Item => {}
        }
    }

    /// Checks that every byte of `v`'s range holds `v`.
    fn read(&mut self, state: &State, v: VarId, span: Span) {
        let Some(place) = self.place(v) else {
            return;
        };
        // A focused pass checks a focus value's reads where it is followed, until one fails.
        let focus_index = match &self.focus {
            Some(foci) => match foci.index_in(v, place.region) {
                Some(i) if !foci.values[i].2 => Some(i),
                _ => return,
            },
            None => None,
        };
        let cells = &state.regions[place.region as usize];
        let mut at = cells.partition_point(|c| c.end <= place.start);
        let mut covered = place.start;
        while covered < place.end {
            match cells.get(at) {
                Some(cell) if cell.start <= covered && cell.holds(v) => {
                    covered = cell.end;
                    at += 1;
                }
                other => {
                    let cause = other
                        .filter(|c| c.start <= covered)
                        .and_then(|c| c.cause(v));
                    self.found.push(Found {
                        var: v,
                        read: span,
                        cause,
                        bytes: (place.start, place.end),
                    });
                    // A focus value's first failing read, on whatever iteration, is a real one
                    // (later iterations start from fewer values), with a real cause.
                    if let (Some(foci), Some(i)) = (&mut self.focus, focus_index) {
                        foci.values[i].2 = true;
                        foci.pending -= 1;
                        self.done = foci.pending == 0;
                    }
                    return;
                }
            }
        }
    }

    /// An op at `at` writes `outputs` at once: each holds its own bytes, and bytes two of them
    /// share hold neither.
    fn write_all(&mut self, state: &mut State, outputs: &[VarId], at: Span) {
        for &out in outputs {
            if let Some(place) = self.place(out) {
                self.clobber_tail(state, place, out, at);
                self.clobber(state, place, out, Some(out), at);
            }
        }
        for (i, &a) in outputs.iter().enumerate() {
            for &b in &outputs[i + 1..] {
                let (Some(pa), Some(pb)) = (self.place(a), self.place(b)) else {
                    continue;
                };
                let (a_end, b_end) = (pa.written_end, pb.written_end);
                if pa.region != pb.region || a_end <= pb.start || b_end <= pa.start {
                    continue;
                }
                let overlap = Place {
                    start: pa.start.max(pb.start),
                    end: a_end.min(b_end),
                    ..pa
                };
                // `b`, written last, holds the shared bytes and loses them to `a` (`a` lost
                // them to `b`).
                self.clobber(state, overlap, a, None, at);
            }
        }
    }

    /// An in-place result (`matmul_acc`, `fillpad_inplace`, ...) is written over its input:
    /// other values there are lost, but where the input is, the names of the input's datum
    /// (the input, its views and aliases) stay: the op, not the plan, decides that the input's
    /// buffer changes, so reading the input afterwards is the program's business. A loop init
    /// the input was carried from is a value of its own and is lost.
    fn write_in_place(
        &mut self,
        state: &mut State,
        place: Place,
        out: VarId,
        input: VarId,
        at: Span,
    ) {
        self.clobber_tail(state, place, out, at);
        let cells = &mut state.regions[place.region as usize];
        let (lo, hi) = split_range(cells, place.start, place.end);
        let kept: Ranges = cells[lo..hi]
            .iter()
            .filter(|c| c.holds(input))
            .map(|c| (c.start, c.end))
            .collect();
        let mut covered = place.start;
        for &(start, end) in kept.iter().chain([(place.end, place.end)].iter()) {
            if covered < start {
                let rest = Place {
                    start: covered,
                    end: start,
                    ..place
                };
                self.clobber(state, rest, out, Some(out), at);
            }
            covered = end;
        }
        let datum = self.facts.datum_of(input);
        let foci = self
            .focus
            .as_ref()
            .map_or(&[][..], |f| f.in_region(place.region));
        let cells = &mut state.regions[place.region as usize];
        for &(start, end) in &kept {
            let (lo, hi) = range_of(cells, start, end);
            for c in &mut cells[lo..hi] {
                for &f in foci {
                    if f != out && c.holds(f) && self.facts.datum_of(f) != datum {
                        c.set_cause(f, Some(Cause::Overwritten { writer: out, at }));
                    }
                }
                c.values.retain(|v| self.facts.datum_of(*v) == datum);
                c.insert(out);
                c.set_cause(out, None);
            }
        }
        let (lo, hi) = range_of(cells, place.start, place.end);
        normalize(cells, lo.saturating_sub(1), (hi + 1).min(cells.len()));
    }

    /// A write of `out` may reach past its data to its MemRef's end: those bytes hold nothing
    /// after it.
    fn clobber_tail(&mut self, state: &mut State, place: Place, out: VarId, at: Span) {
        if place.written_end > place.end {
            let tail = Place {
                start: place.end,
                end: place.written_end,
                ..place
            };
            self.clobber(state, tail, out, None, at);
        }
    }

    /// Replaces the contents of `place` by `value` (or by nothing), the work of `writer`'s op.
    fn clobber(
        &mut self,
        state: &mut State,
        place: Place,
        writer: VarId,
        value: Option<VarId>,
        at: Span,
    ) {
        let cells = &mut state.regions[place.region as usize];
        let Some(foci) = &self.focus else {
            overwrite(cells, place.start, place.end, value);
            return;
        };
        let (lo, hi) = split_range(cells, place.start, place.end);
        let mut values = ValueSet::new();
        values.extend_from_slice(value.as_slice());
        // Follow the focus values: remember where this write removed them.
        let mut replaced: Vec<Cell> = Vec::with_capacity(hi - lo + 2);
        let mut covered = place.start;
        for old in &cells[lo..hi] {
            if old.start > covered {
                push_merged(
                    &mut replaced,
                    covered,
                    old.start,
                    values.clone(),
                    Causes::new(),
                );
            }
            let mut causes = old.causes.clone();
            for &f in foci.in_region(place.region) {
                if Some(f) == value {
                    set_cause_in(&mut causes, f, None);
                } else if old.holds(f) {
                    set_cause_in(&mut causes, f, Some(Cause::Overwritten { writer, at }));
                }
            }
            push_merged(&mut replaced, old.start, old.end, values.clone(), causes);
            covered = old.end;
        }
        if covered < place.end {
            push_merged(&mut replaced, covered, place.end, values, Causes::new());
        }
        replaced.retain(|c| !c.is_blank());
        cells.splice(lo..hi, replaced);
    }

    /// Renames at `at`, all at once: each target is added wherever its source is, within the
    /// target's own range, after the target's previous instance is removed. A target without
    /// a source is bound over its whole range.
    fn rename(&mut self, state: &mut State, pairs: &[Pair], kind: RenameKind, at: Span) {
        // Most renames are of one target: it needs no lists of the targets and their sources.
        if let [(target, source)] = *pairs {
            let Some(p) = self.place(target) else {
                return;
            };
            let cells = &mut state.regions[p.region as usize];
            split_range(cells, p.start, p.end);
            let ranges = self.source_ranges(cells, source, p);
            self.rename_in(cells, (target, source, p), &ranges, kind, at);
            normalize_around(cells, p);
            return;
        }
        let placed: SmallVec<[(VarId, Option<VarId>, Place); 4]> = pairs
            .iter()
            .filter_map(|&(t, s)| self.place(t).map(|p| (t, s, p)))
            .collect();
        if placed.is_empty() {
            return;
        }
        for &(_, _, p) in &placed {
            split_range(&mut state.regions[p.region as usize], p.start, p.end);
        }
        // Where each source is, before any target changes.
        let mut holds: SmallVec<[Ranges; 4]> = SmallVec::new();
        for &(_, source, p) in &placed {
            holds.push(self.source_ranges(&state.regions[p.region as usize], source, p));
        }
        for (&placed, ranges) in placed.iter().zip(&holds) {
            let cells = &mut state.regions[placed.2.region as usize];
            self.rename_in(cells, placed, ranges, kind, at);
        }
        for &(_, _, p) in &placed {
            normalize_around(&mut state.regions[p.region as usize], p);
        }
    }

    /// Where in the target's place `p` a rename's source is (split at `p`'s ends): all of `p`
    /// for a target bound as it is.
    fn source_ranges(&self, cells: &[Cell], source: Option<VarId>, p: Place) -> Ranges {
        let (lo, hi) = range_of(cells, p.start, p.end);
        match source {
            Some(s) if self.is_tile(s) => cells[lo..hi]
                .iter()
                .filter(|c| c.holds(s))
                .map(|c| (c.start, c.end))
                .collect(),
            _ => SmallVec::from_elem((p.start, p.end), 1),
        }
    }

    /// Moves `target` (placed at `p`) onto `ranges`, where its source is, in one region.
    fn rename_in(
        &self,
        cells: &mut Vec<Cell>,
        (target, source, p): (VarId, Option<VarId>, Place),
        ranges: &[(i64, i64)],
        kind: RenameKind,
        at: Span,
    ) {
        let focused = self.is_focus_in(target, p.region);
        if focused {
            fill_gaps(cells, p.start, p.end);
        }
        let (lo, hi) = range_of(cells, p.start, p.end);
        for c in &mut cells[lo..hi] {
            c.remove(target);
            if focused {
                // Where a view's source was overwritten, so is the view.
                let cause = source
                    .filter(|&s| self.facts.datum_of(s) == self.facts.datum_of(target))
                    .and_then(|s| c.cause(s))
                    .filter(|cause| matches!(cause, Cause::Overwritten { .. }))
                    .unwrap_or_else(|| kind.cause(target, source, at));
                c.set_cause(target, Some(cause));
            }
        }
        for &(start, end) in ranges {
            fill_gaps(cells, start, end);
            let (lo, hi) = range_of(cells, start, end);
            for c in &mut cells[lo..hi] {
                c.insert(target);
                if focused {
                    c.set_cause(target, None);
                }
            }
        }
    }

    /// A region on both paths: the values a cell holds on each. In a focused pass, the cause
    /// of a missing focus value comes from the path that lost it.
    fn join_region(&self, region: u32, a: &[Cell], b: &[Cell]) -> Vec<Cell> {
        match &self.focus {
            None => intersect_cells(a, b),
            Some(foci) => join_focused(a, b, foci.in_region(region)),
        }
    }
}

/// Renames of `targets` from the expressions at the same positions.
fn pairs(targets: &[VarId], sources: Option<&[Expr]>) -> SmallVec<[Pair; 4]> {
    targets
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, sources.and_then(|s| s.get(i)).and_then(Expr::as_var)))
        .collect()
}

fn cell(start: i64, end: i64, values: ValueSet) -> Cell {
    Cell {
        start,
        end,
        values,
        causes: Causes::new(),
    }
}

fn cause_in(causes: &Causes, v: VarId) -> Option<Cause> {
    causes
        .binary_search_by_key(&v, |&(f, _)| f)
        .ok()
        .map(|i| causes[i].1)
}

fn set_cause_in(causes: &mut Causes, v: VarId, cause: Option<Cause>) {
    match (causes.binary_search_by_key(&v, |&(f, _)| f), cause) {
        (Ok(i), Some(cause)) => causes[i].1 = cause,
        (Ok(i), None) => {
            causes.remove(i);
        }
        (Err(i), Some(cause)) => causes.insert(i, (v, cause)),
        (Err(_), None) => {}
    }
}

/// The bytes both lists cover, with the values both hold there.
fn intersect_cells(a: &[Cell], b: &[Cell]) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::with_capacity(a.len().min(b.len()));
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        let (start, end) = (x.start.max(y.start), x.end.min(y.end));
        if start < end {
            let values: ValueSet = x.values.iter().copied().filter(|v| y.holds(*v)).collect();
            if !values.is_empty() {
                push_merged(&mut out, start, end, values, Causes::new());
            }
        }
        if x.end <= y.end {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The join of a focused pass: it also keeps, where a focus value is missing on either path,
/// the cause from the path that lost it.
fn join_focused(a: &[Cell], b: &[Cell], foci: &[VarId]) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    let empty = ValueSet::new();
    // Sweep the union of both lists' boundaries; a gap holds nothing and has no cause.
    let mut pos = i64::MIN;
    loop {
        while a.get(i).is_some_and(|c| c.end <= pos) {
            i += 1;
        }
        while b.get(j).is_some_and(|c| c.end <= pos) {
            j += 1;
        }
        let (ca, cb) = (a.get(i), b.get(j));
        let start = match (ca, cb) {
            (None, None) => break,
            (Some(x), None) => x.start,
            (None, Some(y)) => y.start,
            (Some(x), Some(y)) => x.start.min(y.start),
        }
        .max(pos);
        let in_a = ca.filter(|c| c.start <= start);
        let in_b = cb.filter(|c| c.start <= start);
        let end = [
            in_a.map(|c| c.end),
            in_b.map(|c| c.end),
            ca.filter(|c| c.start > start).map(|c| c.start),
            cb.filter(|c| c.start > start).map(|c| c.start),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(i64::MAX);
        let va = in_a.map_or(&empty, |c| &c.values);
        let vb = in_b.map_or(&empty, |c| &c.values);
        let values: ValueSet = va.iter().copied().filter(|v| vb.contains(v)).collect();
        let mut causes = Causes::new();
        for &f in foci {
            let (cause_a, cause_b) = (in_a.and_then(|c| c.cause(f)), in_b.and_then(|c| c.cause(f)));
            let cause = match (va.contains(&f), vb.contains(&f)) {
                (true, true) => None,
                (true, false) => cause_b,
                (false, true) => cause_a,
                (false, false) => cause_a.or(cause_b),
            };
            if let Some(cause) = cause {
                causes.push((f, cause));
            }
        }
        if !(values.is_empty() && causes.is_empty()) {
            push_merged(&mut out, start, end, values, causes);
        }
        pos = end;
    }
    out
}

/// Appends `[start, end)`, merged into the last cell when it continues it with equal contents.
fn push_merged(out: &mut Vec<Cell>, start: i64, end: i64, values: ValueSet, causes: Causes) {
    if let Some(last) = out.last_mut()
        && last.end == start
        && last.values == values
        && last.causes == causes
    {
        last.end = end;
        return;
    }
    out.push(Cell {
        start,
        end,
        values,
        causes,
    });
}

/// Whether two lists of cells hold the same values everywhere (causes aside).
fn same_cells(a: &[Cell], b: &[Cell]) -> bool {
    let same = |x: &Cell, y: &Cell| x.start == y.start && x.end == y.end && x.values == y.values;
    if a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)) {
        return true;
    }
    // Equal contents may be cut into cells differently (focused passes keep causes apart).
    holding(a) == holding(b)
}

/// The maximal runs of bytes holding the same non-empty value set.
fn holding(cells: &[Cell]) -> Vec<(i64, i64, &ValueSet)> {
    let mut runs: Vec<(i64, i64, &ValueSet)> = Vec::new();
    for c in cells.iter().filter(|c| !c.values.is_empty()) {
        match runs.last_mut() {
            Some(last) if last.1 == c.start && *last.2 == c.values => last.1 = c.end,
            _ => runs.push((c.start, c.end, &c.values)),
        }
    }
    runs
}

/// Splits cells so that none straddles `start` or `end`; returns the index range of the cells
/// inside `[start, end)`.
/// Replaces the contents of `[start, end)` by `value` alone (or by nothing), without causes:
/// what [`split_range`] and replacing the cells inside leave, cutting the cells met at the
/// range's ends in place instead of splitting them first.
fn overwrite(cells: &mut Vec<Cell>, start: i64, end: i64, value: Option<VarId>) {
    let mut lo = cells.partition_point(|c| c.end <= start);
    let mut hi = lo + cells[lo..].partition_point(|c| c.start < end);
    if lo < hi && cells[lo].start < start {
        if cells[lo].end > end {
            // One cell holds the whole range: it keeps both sides.
            let mut above = cells[lo].clone();
            above.start = end;
            cells[lo].end = start;
            cells.insert(lo + 1, above);
            if let Some(v) = value {
                cells.insert(lo + 1, cell(start, end, SmallVec::from_elem(v, 1)));
            }
            return;
        }
        cells[lo].end = start;
        lo += 1;
    }
    if lo < hi && cells[hi - 1].end > end {
        cells[hi - 1].start = end;
        hi -= 1;
    }
    match value {
        Some(v) if lo < hi => {
            cells[lo] = cell(start, end, SmallVec::from_elem(v, 1));
            cells.drain(lo + 1..hi);
        }
        Some(v) => cells.insert(lo, cell(start, end, SmallVec::from_elem(v, 1))),
        None => {
            cells.drain(lo..hi);
        }
    }
}

fn split_range(cells: &mut Vec<Cell>, start: i64, end: i64) -> (usize, usize) {
    split_at(cells, start);
    split_at(cells, end);
    range_of(cells, start, end)
}

fn split_at(cells: &mut Vec<Cell>, pos: i64) {
    let at = cells.partition_point(|c| c.end <= pos);
    if let Some(cell) = cells.get(at)
        && cell.start < pos
    {
        let mut upper = cell.clone();
        upper.start = pos;
        cells[at].end = pos;
        cells.insert(at + 1, upper);
    }
}

/// The index range of the cells inside `[start, end)` (cells must not straddle its ends).
fn range_of(cells: &[Cell], start: i64, end: i64) -> (usize, usize) {
    let lo = cells.partition_point(|c| c.end <= start);
    let hi = lo + cells[lo..].partition_point(|c| c.start < end);
    (lo, hi)
}

/// Adds empty cells over the bytes of `[start, end)` no cell covers (the cells must not
/// straddle its ends).
fn fill_gaps(cells: &mut Vec<Cell>, start: i64, end: i64) {
    let (lo, hi) = range_of(cells, start, end);
    // Most ranges are a source's own cells, which leave no gap.
    let mut covered = start;
    let gapless = cells[lo..hi].iter().all(|c| {
        let continues = c.start == covered;
        covered = c.end;
        continues
    });
    if gapless && covered >= end {
        return;
    }
    let mut filled: Vec<Cell> = Vec::with_capacity(hi - lo + 1);
    let mut covered = start;
    for cell in &cells[lo..hi] {
        if cell.start > covered {
            filled.push(blank(covered, cell.start));
        }
        filled.push(cell.clone());
        covered = cell.end;
    }
    if covered < end {
        filled.push(blank(covered, end));
    }
    if filled.len() != hi - lo {
        cells.splice(lo..hi, filled);
    }
}

fn blank(start: i64, end: i64) -> Cell {
    Cell {
        start,
        end,
        values: ValueSet::new(),
        causes: Causes::new(),
    }
}

/// [`normalize`] over the cells of `p` and one neighbour on each side.
fn normalize_around(cells: &mut Vec<Cell>, p: Place) {
    let (lo, hi) = range_of(cells, p.start, p.end);
    normalize(cells, lo.saturating_sub(1), (hi + 1).min(cells.len()));
}

/// Drops blank cells and merges equal neighbours among `cells[lo..hi]`, in place (it runs
/// after every rename, most often changing nothing).
fn normalize(cells: &mut Vec<Cell>, lo: usize, hi: usize) {
    let mut kept = lo;
    for at in lo..hi {
        if cells[at].is_blank() {
            continue;
        }
        if kept > lo {
            let (done, rest) = cells.split_at_mut(at);
            let (last, cell) = (&mut done[kept - 1], &rest[0]);
            if last.end == cell.start && last.values == cell.values && last.causes == cell.causes {
                last.end = cell.end;
                continue;
            }
        }
        cells.swap(kept, at);
        kept += 1;
    }
    if kept < hi {
        cells.drain(kept..hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memreuse_ir::Name;
    use memreuse_ir::parse_program;
    use memreuse_testgen::synth::{SplitMix64, SynthConfig, program_text};

    /// Moves `moves` tiles onto the buffer of another tile of their space, chosen by `rng`.
    fn damage(f: &mut Function, rng: &mut SplitMix64, moves: usize) {
        let tiles: Vec<(VarId, MemSpace, Name)> = f
            .vars
            .iter()
            .filter_map(|(v, var)| match &var.ty {
                Some(Type::Tile(t)) => {
                    let space = t.space.filter(|&s| s != MemSpace::Ddr)?;
                    Some((v, space, t.memref.as_ref()?.base.clone()))
                }
                _ => None,
            })
            .collect();
        if tiles.len() < 2 {
            return;
        }
        for _ in 0..moves {
            let (tile, space, _) = tiles[rng.below(tiles.len())].clone();
            let (_, other_space, base) = tiles[rng.below(tiles.len())].clone();
            if other_space != space {
                continue;
            }
            if let Some(Type::Tile(t)) = &mut f.vars[tile].ty
                && let Some(memref) = &mut t.memref
            {
                memref.base = base;
            }
        }
    }

    /// Generated functions with loops and ifs, `moves` of whose tiles were moved onto the
    /// buffers of others.
    fn damaged(seeds: std::ops::Range<u64>) -> Vec<Function> {
        let mut out = Vec::new();
        for seed in seeds {
            let cfg = SynthConfig {
                functions: 1,
                tiles_per_function: 40,
                max_live: Some(6),
                seed,
                control_flow: true,
            };
            let program =
                parse_program(&program_text("Synth", &cfg)).expect("generated text parses");
            let mut rng = SplitMix64(seed);
            for f in &program.functions {
                let mut f = f.clone();
                damage(&mut f, &mut rng, 6);
                out.push(f);
            }
        }
        out
    }

    /// A repair's trial check answers as the whole check does: `None` exactly when an unsafe
    /// finding names the pair, else every finding; for the pairs the findings name (often
    /// decided from the victim's region alone) and for pairs they do not.
    #[test]
    fn a_trial_check_answers_as_the_whole_check() {
        let opts = VerifyOptions::default();
        let input = crate::PlanInput::default();
        let (mut named, mut kept) = (0, 0);
        for f in damaged(0..60) {
            let all = crate::check_plan(&input, &f, &opts);
            let name = |v: VarId| f.vars[v].name.as_str();
            let mut pairs: Vec<(&str, &str)> = all
                .iter()
                .filter_map(|finding| finding.clobber)
                .map(|c| (name(c.victim), name(c.writer)))
                .collect();
            if let Some(&(victim, _)) = pairs.first() {
                pairs.push((victim, "no such tile"));
            }
            for pair in pairs {
                let names_it = all.iter().any(|finding| {
                    finding.is_unsafe()
                        && finding
                            .clobber
                            .is_some_and(|c| (name(c.victim), name(c.writer)) == pair)
                });
                let expected = (!names_it).then(|| all.clone());
                assert_eq!(
                    crate::check_plan_separating(&input, &f, &opts, pair),
                    expected,
                    "{pair:?} in {}",
                    f.name
                );
                named += usize::from(names_it);
                kept += usize::from(!names_it);
            }
        }
        assert!(named >= 50 && kept >= 20, "{named} named, {kept} not");
    }

    /// Dropping the values no statement uses from a loop's head on changes no value's first
    /// failing read (nor the order of those reads), on generated programs with loops and ifs
    /// whose damage makes values get lost; the drops happen in most of them.
    #[test]
    fn dropping_unused_values_at_loop_heads_changes_no_first_failing_read() {
        let firsts = |found: &[Found]| {
            let mut seen = rustc_hash::FxHashSet::default();
            let first = found.iter().filter(|x| seen.insert(x.var));
            first.map(|x| (x.var, x.read, x.bytes)).collect::<Vec<_>>()
        };
        let (mut dropping, mut losing) = (0, 0);
        for f in damaged(0..80) {
            let facts = Facts::of(&f, &VerifyOptions::default());
            let mut dropped = Interp::new(&f, &facts, None);
            dropped.run();
            // The same facts, with every value used to the end: nothing is dropped.
            let mut kept_facts = Facts::of(&f, &VerifyOptions::default());
            kept_facts.last_use.fill(u32::MAX);
            let mut kept = Interp::new(&f, &kept_facts, None);
            kept.run();
            assert_eq!(firsts(&dropped.found), firsts(&kept.found), "{}", f.name);
            losing += usize::from(!kept.found.is_empty());
            // A loop head past some tile's last use: that tile is dropped there.
            let heads = facts.loop_numbers.values();
            let unused_at = |head: u32| {
                (0..f.vars.len()).any(|v| facts.places[v].is_some() && facts.last_use[v] <= head)
            };
            dropping += usize::from(heads.copied().any(unused_at));
        }
        assert!(
            dropping >= 40 && losing >= 20,
            "{dropping} dropping, {losing} losing"
        );
    }

    /// One focused pass over every region explains each lost value as a pass of its region
    /// alone does (the same first failing read, cause and bytes), on generated programs with
    /// loops and ifs whose tiles are moved onto other tiles' buffers; the damage makes several
    /// regions lose values in many of them, so the passes are compared where they can differ.
    #[test]
    fn one_focused_pass_explains_as_one_per_region() {
        let mut several_regions = 0;
        for f in damaged(0..80) {
            let facts = Facts::of(&f, &VerifyOptions::default());
            let mut fast = Interp::new(&f, &facts, None);
            fast.run();
            let mut lost: Vec<(VarId, Span)> = Vec::new();
            for found in &fast.found {
                if !lost.iter().any(|&(v, _)| v == found.var) {
                    lost.push((found.var, found.read));
                }
            }
            let by_region = lost_by_region(&facts, &lost);
            several_regions += usize::from(by_region.len() > 1);
            let mut apart = FxHashMap::default();
            for region in &by_region {
                apart.extend(explain(&f, &facts, vec![region.clone()]));
            }
            assert_eq!(explain(&f, &facts, by_region), apart, "{}", f.name);
        }
        assert!(
            several_regions >= 20,
            "only {several_regions} damaged functions lose values in several regions"
        );
    }
}
