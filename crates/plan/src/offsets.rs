//! `--planner dsa`: every sharing group keeps its own allocation and gets a byte address from
//! the DSA solver (issue "A near-optimal offset planner"), instead of PyPTO's whole-buffer
//! sharing. Every correctness rule of the PYPTO planner becomes a hard constraint: lifetimes
//! that interfere, forbidden aliases, the 910B hazard, declared allocations and pipeline
//! stages are disjoint byte ranges.
//!
//! The control-flow post-steps (accumulator if-phis, yield fixup, identity copies) run first,
//! with every group on its own buffer, so the copies they insert are part of the lifetimes the
//! solver sees. When the result needs more bytes than PyPTO's packing in some space, PyPTO's
//! (addressed) plan is returned instead: the offset planner is never worse.
//!
//! Stages, which the engine memoizes: [`OffsetInput`] (the post-steps, lifetimes and sharing
//! rules; no capacity), per space [`OffsetInput::disjoint_pairs`] (the only step that reads the
//! capacity), [`OffsetInput::solve`] and [`OffsetInput::check_capacity`], composed with PyPTO's
//! plan by [`plan_offsets`]. The solver is handed no capacity: it only refuses layouts above
//! one, so checking the layout afterwards gives what a solve under it would.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::address;
use crate::analysis::lifetimes::{self, Lifetimes};
use crate::capacity;
use crate::cleanup::{self, hoist_allocs};
use crate::config::{LayoutSearch, PlanConfig, Planner};
use crate::fixup;
use crate::layout::{self, Reserved, align32};
use crate::pack::{Blocker, PipelineGate, ShareFacts, pair_blocker};
use crate::pipeline::{PlanOptions, Planning};
use crate::report::{
    BufferReport, FunctionPlan, PlanError, PlanReport, SpaceReport, lifetime_report, move_reports,
};
use crate::retarget;
use crate::stages::{SharingRules, spaces_of};
use memreuse_ir::codes as address_codes;
use memreuse_ir::diagnostics::{Diagnostic, Severity};
use memreuse_ir::{Function, FunctionType, MemSpace, Name, Type, VarId};
use memreuse_solve::{self as dsa, Buffer as DsaBuffer, Problem, SolveOptions};

/// Search nodes per space: a budget instead of a deadline keeps the plan the same on every run
/// and machine.
const NODE_LIMIT: u64 = 200_000;

/// Plans `input` with the offset planner: PyPTO's plan (addressed, the groups in
/// `own_buffer` kept off shared buffers as the safe planner asks) is the fallback, and
/// [`OffsetInput`] and [`OffsetInput::place`] are the stages [`plan_offsets`] composes.
pub(crate) fn plan_function(
    input: &Function,
    config: &PlanConfig,
    options: &PlanOptions<'_>,
) -> Result<FunctionPlan, PlanError> {
    let pypto = Planning::once(Arc::new(input.clone()), &fallback_config(config)).plan(options);
    let offset_input = || {
        let mut f = input.clone();
        if config.materialize_aliases {
            retarget::materialize_semantic_aliases(&mut f, config);
        }
        OffsetInput::of(f, config).map(Cow::Owned)
    };
    let place = |offsets: &OffsetInput, space, bound| {
        let capacity = match bound {
            Bound::Capacity => config.planning_capacity(space),
            Bound::Unbounded => None,
        };
        offsets.place(space, capacity, options.own_buffer, options.search)
    };
    let capacities = Capacities {
        planning: &|space| config.planning_capacity(space),
        assign_addresses: &|| config.assign_addresses,
    };
    let mut plan = plan_offsets(input, pypto, offset_input, place, capacities)?;
    for space in &mut plan.report.spaces {
        space.capacity = config.capacity(space.space);
    }
    Ok(plan)
}

/// What the offset planner reads of the configuration where nothing fits a space, asked only
/// there (so the engine's plan depends on the capacities only where one overflows).
#[derive(Clone, Copy)]
pub struct Capacities<'a> {
    /// Each space's planning capacity.
    pub planning: &'a dyn Fn(MemSpace) -> Option<i64>,
    /// `--addresses`: an overflow is then an error.
    pub assign_addresses: &'a dyn Fn() -> bool,
}

/// The configuration of the offset planner's fallback: PyPTO's plan, addressed.
pub fn fallback_config(config: &PlanConfig) -> PlanConfig {
    PlanConfig {
        planner: Planner::Pypto,
        assign_addresses: true,
        ..*config
    }
}

/// Which capacity a space is laid out under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The space's planning capacity, where known.
    Capacity,
    /// None: the smallest layout when nothing fits the capacity (left to AllocateMemoryAddr).
    Unbounded,
}

/// The offset planner's plan of `input`, from PyPTO's plan of it (`pypto`, with
/// [`fallback_config`]), the offset planner's input (made only where the solver runs) and each
/// space's layout (`place`, under the [`Bound`] asked for). The engine memoizes the stages; the
/// planner computes them here. The report leaves each space's capacity to the caller.
pub fn plan_offsets<'a>(
    input: &Function,
    pypto: Result<FunctionPlan, PlanError>,
    offset_input: impl FnOnce() -> Result<Cow<'a, OffsetInput>, PlanError>,
    mut place: impl FnMut(&OffsetInput, MemSpace, Bound) -> Result<Option<Placement>, PlanError>,
    capacities: Capacities<'_>,
) -> Result<FunctionPlan, PlanError> {
    if input.function_type() == FunctionType::Orchestration {
        return pypto;
    }
    // PyPTO's plan, addressed, overflowing a capacity is no fallback; the solver may still fit.
    if let Err(err) = &pypto
        && err.0.code != address_codes::CAPACITY_OVERFLOW
    {
        return pypto;
    }
    let offsets = offset_input()?;
    let lifetimes = &offsets.lifetimes;
    let mut report = PlanReport {
        lifetimes: lifetime_report(lifetimes),
        statement_spans: lifetimes.statement_spans.clone(),
        diagnostics: offsets.nested_writebacks.clone(),
        ..PlanReport::default()
    };
    let Some(constraints) = &offsets.constraints else {
        return Ok(FunctionPlan {
            function: offsets.into_owned().function,
            report,
        });
    };
    let f = &offsets.function;
    let reserved = &constraints.reserved;
    let mut addresses = BTreeMap::new();
    let mut footprints = BTreeMap::new();
    for (space, in_space) in spaces_of(lifetimes) {
        let reserved_start = reserved.start_of(space);
        let pypto_footprint = pypto.as_ref().ok().and_then(|pypto| {
            pypto
                .report
                .spaces
                .iter()
                .find(|s| s.space == space)
                .map(|s| s.footprint)
        });
        let (placed, overflow) = match place(&offsets, space, Bound::Capacity) {
            Ok(placed) => (placed, None),
            Err(err) if err.0.code == address_codes::CAPACITY_OVERFLOW => (None, Some(err)),
            Err(err) => return Err(err),
        };
        let placed = placed.filter(|placed| pypto_footprint.is_none_or(|p| placed.footprint <= p));
        let Placement {
            addresses: space_addresses,
            footprint,
        } = match placed {
            Some(placed) => placed,
            None => {
                // PyPTO's plan, addressed, fits: the offset planner is never worse than it.
                let pypto_overflow = match pypto {
                    Ok(pypto) => return Ok(pypto_instead(pypto, space)),
                    Err(ref err) => err.clone(),
                };
                // Nothing fits the capacity, PyPTO's plan neither: as PyPTO's plan without
                // `--addresses`, the layout is emitted with the warning that AllocateMemoryAddr
                // will stop there (rules §8); with `--addresses` the overflow is the error.
                let Some(placed) = place(&offsets, space, Bound::Unbounded)? else {
                    return Err(overflow.unwrap_or(pypto_overflow));
                };
                let capacity = (capacities.planning)(space);
                if let Some(capacity) = capacity.filter(|&c| placed.footprint > c) {
                    let error = overflow.unwrap_or_else(|| {
                        address::overflow_error(
                            &f.name,
                            address::head_of(f),
                            space,
                            placed.footprint,
                            capacity,
                            reserved_start,
                        )
                    });
                    if (capacities.assign_addresses)() {
                        return Err(error);
                    }
                    report
                        .diagnostics
                        .push(address::overflow_left_to_allocate_memory_addr(
                            error,
                            Planner::Dsa,
                        ));
                }
                placed
            }
        };
        addresses.extend(space_addresses);
        footprints.insert(space, footprint);
        let buffers = buffers_report(f, lifetimes, &in_space, &addresses);
        let footprints = (footprint, pypto_footprint);
        let space_report = space_report(space, lifetimes, &in_space, footprints, buffers);
        report.spaces.push(space_report);
    }
    let reserved = reserved.clone();
    let moves = offsets.moves.clone();
    let mut f = offsets.into_owned().function;
    apply_addresses(&mut f, &addresses, &mut footprints, &reserved);
    for s in &mut report.spaces {
        s.footprint = footprints.get(&s.space).copied().unwrap_or(s.footprint);
    }
    report.inserted_moves = move_reports(&moves, &f.vars);
    Ok(FunctionPlan {
        function: f,
        report,
    })
}

/// The report of `space`, whose buffers (each interval of `in_space` one, none shared) the
/// offset planner laid out in `footprint` bytes, against PyPTO's `pypto_footprint`.
fn space_report(
    space: MemSpace,
    lifetimes: &Lifetimes,
    in_space: &[usize],
    (footprint, pypto_footprint): (i64, Option<i64>),
    buffers: Vec<BufferReport>,
) -> SpaceReport {
    let intervals = &lifetimes.intervals;
    let live = lifetimes.live_bytes(in_space);
    let bytes: i64 = in_space.iter().map(|&i| intervals[i].size).sum();
    SpaceReport {
        space,
        capacity: None,
        tiles: in_space.iter().map(|&i| intervals[i].members.len()).sum(),
        buffers_before: in_space.len(),
        buffers_after: in_space.len(),
        bytes_before: bytes,
        bytes_after: bytes,
        lower_bound: crate::analysis::lifetimes::peak(&live),
        live,
        footprint,
        pypto_footprint,
        buffers,
    }
}

/// What the offset planner lays out: the function after Step 0 and the control-flow
/// post-steps (accumulator if-phis, yield fixup, identity copies), run with every group on its
/// own buffer so that the copies they insert are part of the lifetimes the solver sees; its
/// lifetimes; and, where it has tiles, the rules that keep groups apart. Reads the backend and
/// `exact`, no capacity.
#[derive(Clone, Debug, PartialEq)]
pub struct OffsetInput {
    function: Function,
    lifetimes: Lifetimes,
    nested_writebacks: Vec<Diagnostic>,
    /// The `tile.move`s the yield fixup inserted (source, destination).
    moves: Vec<(VarId, VarId)>,
    /// `None` for a function without tiles.
    constraints: Option<Constraints>,
}

#[derive(Clone, Debug, PartialEq)]
struct Constraints {
    rules: SharingRules,
    reserved: Reserved,
}

impl OffsetInput {
    /// The post-steps over `f`, a function after Step 0.
    pub fn of(mut f: Function, config: &PlanConfig) -> Result<OffsetInput, PlanError> {
        // The safe planner's fixups, as PyPTO's plan gets them (stages::finish): carries
        // aligned, nested carries written back.
        let safe = !config.exact;
        if safe {
            // Every group keeps its own allocation: not PyPTO's decision, nothing to report.
            let rule = fixup::CarryAlignment::Safe {
                pypto_aligns: false,
            };
            fixup::align_loop_carries(&f.body, &mut f.vars, rule);
        }
        fixup::coalesce_accumulator_if_phis(&mut f, config.backend)?;
        // Seed rule S3: identity copies are normalised before the yield fixup too.
        if config.rules.seed() {
            fixup::normalize_identity_copies(&f.body, &mut f.vars);
        }
        let inserted = fixup::fix_yields(&mut f, safe, config.rules)?;
        let nested_writebacks: Vec<Diagnostic> = inserted
            .nested_writebacks
            .iter()
            .map(|&(iter_arg, yielded, moved)| {
                fixup::nested_writeback_warning(&f.vars, iter_arg, yielded, moved)
            })
            .collect();
        hoist_allocs(&mut f, &inserted.allocs);
        fixup::normalize_identity_copies(&f.body, &mut f.vars);
        cleanup::strip_pipeline_membership(&mut f.body);

        let lifetimes = lifetimes::analyze(&f);
        let constraints = if lifetimes.intervals.is_empty() {
            None
        } else {
            Some(Constraints {
                rules: SharingRules::of(&f, &lifetimes, config)?,
                reserved: layout::reserved_windows(&f)?,
            })
        };
        Ok(OffsetInput {
            function: f,
            lifetimes,
            nested_writebacks,
            moves: inserted.moves,
            constraints,
        })
    }

    /// Places the groups of one space with the DSA solver under `capacity` (the groups of
    /// the tiles in `own_buffer` share no byte with another): [`OffsetInput::disjoint_pairs`],
    /// [`OffsetInput::solve`] and [`OffsetInput::check_capacity`], which the engine memoizes
    /// one by one.
    pub fn place(
        &self,
        space: MemSpace,
        capacity: Option<i64>,
        own_buffer: &FxHashSet<VarId>,
        search: LayoutSearch,
    ) -> Result<Option<Placement>, PlanError> {
        let pairs = self.disjoint_pairs(space, capacity, own_buffer);
        let layout = self.solve(space, &pairs, search);
        self.check_capacity(space, &layout, capacity)
    }

    /// The space's intervals (indices into the lifetimes'), one buffer each.
    fn in_space(&self, space: MemSpace) -> Vec<usize> {
        let intervals = &self.lifetimes.intervals;
        (0..intervals.len())
            .filter(|&i| intervals[i].space == space)
            .collect()
    }

    /// Where the space's tiles start: above the reserved windows.
    fn reserved_start(&self, space: MemSpace) -> i64 {
        self.constraints
            .as_ref()
            .map_or(0, |c| c.reserved.start_of(space))
    }

    /// The pairs of the space's buffers (indices into its intervals) that must not share
    /// bytes. The only part of laying a space out that reads its capacity: how deep each
    /// pipeline group may go decides which of its stages stay apart. The solver is handed no
    /// capacity, its layout does not depend on one ([`OffsetInput::check_capacity`] holds it
    /// to it).
    pub fn disjoint_pairs(
        &self,
        space: MemSpace,
        capacity: Option<i64>,
        own_buffer: &FxHashSet<VarId>,
    ) -> DisjointPairs {
        let Some(constraints) = &self.constraints else {
            // A function without tiles has nothing to lay out.
            return DisjointPairs(Vec::new());
        };
        let lifetimes = &self.lifetimes;
        let intervals = &lifetimes.intervals;
        let in_space = self.in_space(space);
        let facts = constraints.rules.facts(lifetimes);
        let ivs: Vec<_> = in_space.iter().map(|&i| &intervals[i]).collect();
        let gate = PipelineGate::new(space, &ivs, capacity);
        let mut pairs = disjoint_pairs(&facts, &gate, &in_space);
        // A group the safe planner keeps on its own allocation shares no byte with another.
        if !own_buffer.is_empty() {
            for (k, &i) in in_space.iter().enumerate() {
                if intervals[i].members.iter().any(|v| own_buffer.contains(v)) {
                    pairs.extend(
                        (0..in_space.len())
                            .filter(|&o| o != k)
                            .map(|o| (k.min(o), k.max(o))),
                    );
                }
            }
            pairs.sort_unstable();
            pairs.dedup();
        }
        DisjointPairs(pairs)
    }

    /// Lays the space out with the solver (with its search where asked for), its buffers
    /// kept apart as `pairs` says.
    pub fn solve(
        &self,
        space: MemSpace,
        pairs: &DisjointPairs,
        search: LayoutSearch,
    ) -> SpaceLayout {
        let intervals = &self.lifetimes.intervals;
        let extents = base_extents(&self.function);
        let buffers: Vec<DsaBuffer> = self
            .in_space(space)
            .iter()
            .map(|&i| {
                let iv = &intervals[i];
                // A tile at an offset inside its base (a view, a copy of one) needs the bytes
                // up to its end: the base gets one address, its tiles sit at their offsets
                // from it.
                let size = iv.size.max(extents.get(&iv.base).copied().unwrap_or(0));
                DsaBuffer {
                    lower: u64::from(iv.def),
                    // A never-read tile still occupies its bytes at its definition.
                    upper: u64::from(iv.last.max(iv.def + 1)),
                    size: size.max(0) as u64,
                }
            })
            .collect();
        let problem = Problem::new(buffers)
            .with_alignment(32)
            .with_disjoint_pairs(pairs.0.clone());
        let options = SolveOptions {
            time_limit: None,
            node_limit: Some(match search {
                LayoutSearch::Full => NODE_LIMIT,
                LayoutSearch::Greedy => 0,
            }),
            ..SolveOptions::default()
        };
        // An invalid problem has no layout.
        let solved = dsa::solve(&problem, &options).ok();
        SpaceLayout(solved.map(|solution| Solved {
            offsets: solution.offsets,
            peak: solution.peak,
            live_peak: dsa::max_live_bytes(&problem),
        }))
    }

    /// The space's `layout` under `capacity`, as the solver would have refused it: each
    /// base's address and the footprint, or `None` when it needs more than the capacity (or
    /// the problem was invalid); an error where the bytes live at one instant exceed it.
    pub fn check_capacity(
        &self,
        space: MemSpace,
        layout: &SpaceLayout,
        capacity: Option<i64>,
    ) -> Result<Option<Placement>, PlanError> {
        let Some(Solved {
            offsets,
            peak,
            live_peak: live,
        }) = &layout.0
        else {
            return Ok(None);
        };
        let (f, intervals) = (&self.function, &self.lifetimes.intervals);
        let in_space = self.in_space(space);
        let reserved_start = self.reserved_start(space);
        if let Some(capacity) = capacity {
            let room = (capacity - reserved_start).max(0) as u64;
            if live.bytes > room {
                let names: Vec<String> = live
                    .live
                    .iter()
                    .map(|&k| f.vars[intervals[in_space[k]].rep].name.to_string())
                    .collect();
                // Located at the statement where those bytes are live.
                let at = self.lifetimes.statement_spans.get(live.instant as usize);
                return Err(PlanError::new(
                    address_codes::CAPACITY_OVERFLOW,
                    format!(
                        "{} needs {} bytes here ({} bytes live in {}) but the limit is {capacity} bytes",
                        space.name(),
                        live.bytes as i64 + reserved_start,
                        live.bytes,
                        names.join(", ")
                    ),
                    at.copied().unwrap_or_else(|| address::head_of(f)),
                ));
            }
            if *peak > room {
                return Ok(None);
            }
        }
        let addresses = in_space
            .iter()
            .zip(offsets)
            .map(|(&i, &offset)| (intervals[i].base.clone(), reserved_start + offset as i64))
            .collect();
        Ok(Some(Placement {
            addresses,
            footprint: align32(reserved_start + *peak as i64),
        }))
    }
}

/// The pairs of one space's buffers that must not share bytes ([`OffsetInput::disjoint_pairs`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisjointPairs(Vec<(usize, usize)>);

/// What the solver made of one space, before any capacity is applied (`None` for an invalid
/// problem).
#[derive(Clone, Debug, PartialEq)]
pub struct SpaceLayout(Option<Solved>);

#[derive(Clone, Debug, PartialEq)]
struct Solved {
    /// Each buffer's offset above the reserved windows.
    offsets: Vec<u64>,
    peak: u64,
    /// The instant where the most bytes are live: no capacity below them holds any layout.
    live_peak: dsa::LiveBytesPeak,
}

/// PyPTO's plan, addressed, with a note saying why it was kept.
fn pypto_instead(mut pypto: FunctionPlan, space: MemSpace) -> FunctionPlan {
    let f = &mut pypto.function;
    if !capacity::gets_addresses(f) {
        // Offsets must be addresses in this mode whatever the function type.
        if let Ok(reserved) = layout::reserved_windows(f) {
            let addressing = address::allocate(f, &reserved);
            address::apply(f, &addressing, &reserved);
        }
    }
    for s in &mut pypto.report.spaces {
        s.pypto_footprint = Some(s.footprint);
    }
    pypto.report.diagnostics.push(Diagnostic {
        severity: Severity::Hint,
        code: "MR-H002",
        message: format!(
            "the offset planner found no layout of {} smaller than PyPTO's packing; PyPTO's plan is used",
            space.name()
        ),
        span: address::head_of(&pypto.function),
        hint: None,
        related: Vec::new(),
    });
    pypto
}

/// One space laid out: each base's address, and the space's footprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub addresses: Vec<(Name, i64)>,
    pub footprint: i64,
}

/// Pairs that must not share bytes even when their lifetimes only touch: every gate of
/// `can_share` other than the lifetime one (which the solver sees through the lifetimes).
fn disjoint_pairs(
    facts: &ShareFacts,
    gate: &PipelineGate,
    in_space: &[usize],
) -> Vec<(usize, usize)> {
    let position: FxHashMap<usize, usize> =
        in_space.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let mut pairs = Vec::new();
    let mut special: Vec<usize> = Vec::new();
    for (k, &i) in in_space.iter().enumerate() {
        for target in &facts.forbids[i] {
            if let Some(&other) = position.get(target)
                && other != k
            {
                pairs.push((k.min(other), k.max(other)));
            }
        }
        let iv = &facts.lifetimes.intervals[i];
        let hazardous = facts
            .hazard
            .is_some_and(|h| h.reads_tpop.contains(&iv.rep) || h.load_derived.contains(&iv.rep));
        if facts.pinned.contains(&i) || !iv.pipeline.is_empty() || hazardous {
            special.push(k);
        }
    }
    // Pinned, pipelined and hazard-classified groups are few; check them against everyone.
    for &k in &special {
        for (other, &j) in in_space.iter().enumerate() {
            if other == k {
                continue;
            }
            let blocker = pair_blocker(facts, gate, in_space[k], j);
            if matches!(
                blocker,
                Some(Blocker::Pinned(_) | Blocker::Hazard { .. } | Blocker::PipelineStage)
            ) {
                pairs.push((k.min(other), k.max(other)));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// Rewrites every on-chip MemRef to its base's address plus its offset inside the base (bases
/// the post-steps created, such as carry scratch buffers, go above everything else).
/// The end of the furthest tile on each base (constant offset plus size).
fn base_extents(f: &Function) -> FxHashMap<Name, i64> {
    let mut extents: FxHashMap<Name, i64> = FxHashMap::default();
    for (_, var) in f.vars.iter() {
        if let Some(Type::Tile(tile)) = &var.ty
            && let Some(memref) = &tile.memref
            && let (Some(offset), Some(size)) = (memref.const_offset(), memref.size_bytes())
        {
            let end = extents.entry(memref.base.clone()).or_default();
            *end = (*end).max(offset + size);
        }
    }
    extents
}

pub(super) fn apply_addresses(
    f: &mut Function,
    addresses: &BTreeMap<Name, i64>,
    footprints: &mut BTreeMap<MemSpace, i64>,
    reserved: &Reserved,
) {
    let mut extra: BTreeMap<Name, i64> = BTreeMap::new();
    address::for_each_local_extent(f, |base, space, extent| {
        let Some(space) = space.filter(|&s| s != MemSpace::Ddr) else {
            return;
        };
        let size = extent.size.as_const_int().unwrap_or(0);
        let base_address = match addresses.get(base).or(extra.get(base)) {
            Some(&a) => a,
            None => {
                let end = footprints
                    .entry(space)
                    .or_insert_with(|| reserved.start_of(space));
                let at = *end;
                *end = align32(at + size);
                extra.insert(base.clone(), at);
                at
            }
        };
        extent.offset = address::offset_from(base_address, &extent.offset);
    });
}

/// The report of one space under the offset planner: one buffer per base.
pub(super) fn buffers_report(
    f: &Function,
    lifetimes: &Lifetimes,
    in_space: &[usize],
    addresses: &BTreeMap<Name, i64>,
) -> Vec<BufferReport> {
    in_space
        .iter()
        .map(|&i| {
            let iv = &lifetimes.intervals[i];
            BufferReport {
                base: iv.base.clone(),
                size: iv.size,
                offset: addresses.get(&iv.base).copied().unwrap_or(0),
                pinned: false,
                members: iv.members.iter().map(|&v| f.vars[v].name.clone()).collect(),
            }
        })
        .collect()
}
