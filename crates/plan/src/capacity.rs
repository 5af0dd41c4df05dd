//! What memory capacity does to planning (rules §2.5, §6.7–§6.8, §9): reserved windows, the
//! allocator footprint shared with address assignment, the shed/fallback loop and its
//! diagnostics.

use memreuse_ir::ops::{OpRole, op_role};

use super::pack::{Buffer, PipelineGate, ShareFacts, pack, pack_subdivided};
use crate::analysis::lifetimes::{Lifetimes, defining_calls};
use crate::config::Rules;
use crate::layout::align32;
use memreuse_ir::diagnostics::{Diagnostic, Severity};
use memreuse_ir::{Function, FunctionType, MemSpace, Span, Type, VarId};

use memreuse_ir::codes;

/// The allocator's footprint of a packing: buffers laid out in creation order from
/// `reserved_start`, each 32-byte aligned (rules §6.7; the same walk as §8).
pub fn footprint(buffers: &[Buffer], reserved_start: i64) -> i64 {
    crate::layout::lay_out(reserved_start, buffers.iter().map(|b| b.size)).1
}

const SHED_BUDGET: usize = 256;

/// A footprint no packing of `intervals` from `reserved_start` goes below, subranges or not:
/// at each step the intervals live there (`def <= step < last`) whose members are in no if-phi
/// family overlap one another with no family to explain it, so no gate lets two of them share
/// a byte (`pack::pair_blocker`, `Packing::fits`); each buffer holds its members inside its
/// size, so the buffers' sizes add up to at least theirs, and the layout (`lay_out`, each start
/// aligned up) ends at or past `reserved_start` plus the sizes.
fn footprint_floor(facts: &ShareFacts, intervals: &[usize], reserved_start: i64) -> i64 {
    let lifetimes = facts.lifetimes;
    let in_no_family = |i: usize| {
        !lifetimes.has_families()
            || lifetimes.intervals[i]
                .members
                .iter()
                .all(|&v| lifetimes.families(v).is_empty())
    };
    // (step, bytes) events; at one step the ends come first, as an interval ending there is
    // not live at it.
    let mut events: Vec<(u32, i64)> = Vec::with_capacity(2 * intervals.len());
    for &i in intervals.iter().filter(|&&i| in_no_family(i)) {
        let iv = &lifetimes.intervals[i];
        if iv.def < iv.last {
            events.push((iv.def, iv.size));
            events.push((iv.last, -iv.size));
        }
    }
    events.sort_unstable();
    let (mut live, mut peak) = (0i64, 0i64);
    for (_, bytes) in events {
        live += bytes;
        peak = peak.max(live);
    }
    reserved_start + peak
}

/// Which groups of a space the subrange fallback may move (seed S4): roots with a constant,
/// non-negative offset whose constant members lie inside the root. A symbolic offset is allowed
/// only on a direct `tile.slice`; any other symbolic member disables subdivision for the space.
pub struct Subdivision {
    enabled: bool,
    /// Indexed by interval.
    eligible: Vec<bool>,
}

impl Subdivision {
    pub fn of_space(f: &Function, lifetimes: &Lifetimes, intervals: &[usize]) -> Subdivision {
        // Only a symbolic member offset asks for its defining call: most spaces have none.
        let mut calls = None;
        let mut eligible = vec![false; lifetimes.intervals.len()];
        for &i in intervals {
            let iv = &lifetimes.intervals[i];
            let memref = |v: VarId| f.vars[v].ty.as_ref().and_then(Type::memref);
            let Some(root) = memref(iv.rep) else { continue };
            let Some(root_offset) = root.const_offset().filter(|&o| o >= 0) else {
                continue;
            };
            let root_size = root.size_bytes().unwrap_or(0);
            let mut in_bounds = true;
            for &member in &iv.members {
                let Some(m) = memref(member) else { continue };
                match m.const_offset() {
                    Some(offset) => {
                        let rel = offset - root_offset;
                        in_bounds &= rel >= 0 && rel + m.size_bytes().unwrap_or(0) <= root_size;
                    }
                    None => {
                        let direct_slice = calls
                            .get_or_insert_with(|| defining_calls(f))
                            .get(&member)
                            .is_some_and(|c| op_role(c.op()) == OpRole::Slice);
                        if !direct_slice {
                            return Subdivision {
                                enabled: false,
                                eligible: Default::default(),
                            };
                        }
                    }
                }
            }
            if in_bounds && let Some(slot) = eligible.get_mut(i) {
                *slot = true;
            }
        }
        Subdivision {
            enabled: true,
            eligible,
        }
    }

    fn allows(&self, interval: usize) -> bool {
        self.enabled && self.eligible.get(interval).is_some_and(|&e| e)
    }
}

/// One memory space to pack under a capacity.
pub struct SpaceInput<'a> {
    pub space: MemSpace,
    pub intervals: &'a [usize],
    pub facts: &'a ShareFacts<'a>,
    /// Known: a space of unknown capacity has no capacity loop.
    pub capacity: i64,
    pub reserved_start: i64,
    /// The function, for the subrange fallback's eligibility rules.
    pub function: &'a Function,
    /// Where the fallback warning points.
    pub function_span: Span,
    /// The subrange fallback is the seed's (S4): the snapshot sheds depth straight away.
    pub rules: Rules,
}

/// rules §6.7: pack, and while a known capacity overflows, try subranges (seed S4), then shed
/// pipeline depth (MaxRelief) or fall back to the legacy predicate. `first` is the first
/// packing, made under `gate` as it comes in.
pub fn pack_within_capacity(
    input: &SpaceInput,
    gate: &mut PipelineGate,
    first: Vec<Buffer>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Buffer> {
    let SpaceInput {
        space,
        intervals,
        facts,
        capacity,
        reserved_start,
        function,
        function_span,
        rules,
    } = *input;
    let mut buffers = first;
    let overflows = |b: &[Buffer]| footprint(b, reserved_start) > capacity;
    let subdivision = || Subdivision::of_space(function, facts.lifetimes, intervals);
    if rules.seed()
        && overflows(&buffers)
        && let subdivision = subdivision()
        && subdivision.enabled
    {
        // Seed S4: only after an exact overflow, and only if subranges make it fit; otherwise
        // the shed and fallback below run unchanged. Subranges cannot make it fit where the
        // bytes no packing shares overflow already: their packing, which would only show it
        // again, is then not made (each repair trial of a function over its capacity made it
        // again). Debug builds make it and hold it to that floor.
        let floor = footprint_floor(facts, intervals, reserved_start);
        if floor <= capacity || cfg!(debug_assertions) {
            let subdivided =
                pack_subdivided(intervals, facts, gate, &|i| subdivision.allows(i), 32);
            debug_assert!(footprint(&subdivided, reserved_start) >= floor);
            if !overflows(&subdivided) {
                return subdivided;
            }
        }
    }
    let mut repacks = 0;
    while footprint(&buffers, reserved_start) > capacity {
        repacks += 1;
        let within_budget = repacks <= SHED_BUDGET;
        let pick = if within_budget {
            gate.groups
                .iter()
                .filter(|(_, g)| g.depth > 1)
                // Largest aligned slot first; among equals the smallest group id.
                .max_by_key(|&(&id, g)| (align32(g.slot), std::cmp::Reverse(id)))
                .map(|(&id, _)| id)
        } else {
            None
        };
        let Some(group) = pick else {
            gate.forced_legacy = true;
            buffers = pack(intervals, facts, gate);
            let oversized = buffers.iter().any(|b| b.size > capacity);
            if !oversized {
                let why = if within_budget {
                    "at any double-buffering depth"
                } else {
                    "within the shed-repack budget"
                };
                let still = if footprint(&buffers, reserved_start) > capacity {
                    " (which also overflows — reduce tile size or stage count)"
                } else {
                    ""
                };
                diagnostics.push(Diagnostic {
                    severity: Severity::Warning,
                    code: codes::FALLBACK_WARNING,
                    message: format!(
                        "capacity-gated reuse could not fit memory space {} {why}; fell back to the legacy packing{still}.",
                        space.name()
                    ),
                    span: function_span,
                    hint: None,
                    related: Vec::new(),
                });
            }
            break;
        };
        if let Some(g) = gate.groups.get_mut(&group) {
            g.depth -= 1;
        }
        buffers = pack(intervals, facts, gate);
    }
    buffers
}

/// rules §6.8 / §9.1: a PH-MR-001 hint for every pipeline group of one space whose
/// affordable depth fell below the requested one, in ascending group order (the spaces'
/// hints follow one another in ascending space order).
pub fn perf_hints(
    f: &Function,
    gate: &PipelineGate,
    capacity: i64,
    reserved: i64,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let space = gate.space;
    if !gate.capacity_known || gate.forced_legacy {
        return;
    }
    for (&id, group) in &gate.groups {
        let requested = group.stages.len();
        let achieved = group.depth;
        if achieved >= requested {
            continue;
        }
        let free = (capacity - reserved).max(0);
        let aslot = align32(group.slot);
        let need = aslot * requested as i64;
        let slot_bound = free == 0 || need > free;
        let after = if reserved != 0 {
            format!(" after {reserved} B reserved")
        } else {
            String::new()
        };
        let tail = if slot_bound {
            format!(
                "This operand alone needs {need} B for depth {requested}; shrink the per-stage tile to <= {} B, or reduce the pipeline depth (e.g. `pl.pipeline(stage=)`) to {achieved}.",
                free / requested as i64
            )
        } else {
            format!(
                "The operand would fit depth {requested} on its own, but co-resident buffers / other pipeline groups over-subscribe the space; relieve the co-residents (smaller or fewer co-live tiles) or reduce the pipeline depth to {achieved}."
            )
        };
        diagnostics.push(Diagnostic {
            severity: Severity::Hint,
            code: codes::PERF_HINT,
            message: format!(
                "software pipelining requested depth {requested} for pipeline group {id} in {}, but only {achieved} of {requested} buffers fit ({aslot} B per stage, {free} B free{after}) — stages {achieved} apart share storage and serialize. {tail}",
                space.name()
            ),
            span: group.first_member.map_or(f.span, |v| f.vars[v].span),
            hint: None,
            related: Vec::new(),
        });
    }
}

/// Whether a function's MemRefs get addresses (AllocateMemoryAddr runs, rules §8).
pub fn gets_addresses(f: &Function) -> bool {
    matches!(
        f.function_type(),
        FunctionType::InCore | FunctionType::Aic | FunctionType::Aiv
    )
}
