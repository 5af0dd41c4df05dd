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
//!
//! # Where it is
//!
//! `facts` reads the function once (where each tile sits, what each statement does to which
//! tiles); `cells` is one region's state; `interp` runs the statements over the regions'
//! cells and checks every read; `violation` is what a failing read reports. This module runs
//! them: the fast pass, the focused passes that explain, and each finding's words.

mod cells;
mod facts;
mod interp;
mod violation;

pub use violation::{Cause, MustNotAlias, ValueViolation};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use memreuse_ir::codes;
use memreuse_ir::diagnostics::{Diagnostic, Related};
use memreuse_ir::{Function, Span, VarId};

use crate::liveness::var;
use crate::options::VerifyOptions;
use crate::text::{Text, Tile, Worded, Words, text};

use facts::{Effect, Facts, Place};
use interp::{Foci, Interp};

/// A broken plan can lose most of its values; past this many the rest are summarised.
pub const MAX_REPORTED: usize = 50;

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

#[cfg(test)]
mod tests {
    use super::*;
    use interp::Found;
    use memreuse_ir::parse_program;
    use memreuse_ir::{MemSpace, Name, Type};
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
