//! PyPTO's MemoryReuse as stages: `prepare` (Step 0) → lifetimes (`analysis`) →
//! [`SharingRules::of`] → `pack_unbounded` and `pack_within` per space → `finish`
//! (fixups, cleanup) → `apply_layout` (AllocateMemoryAddr's check and addresses).
//! [`crate::pipeline`] composes them.

use std::borrow::Cow;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::forbid_alias::{build_forbid_map, hazard_inputs};
use crate::analysis::lifetimes::{self, Lifetimes, visit_assignments};
use crate::capacity;
use crate::cleanup::{self, hoist_allocs};
use crate::config::{PlanConfig, Rules};
use crate::fixup;
use crate::layout::{self, Reserved};
use crate::pack::{Buffer, PipelineGate, ShareFacts, ShareIndex};
use crate::report::{
    BufferReport, FunctionPlan, MemberRows, PlanError, PlanReport, SpaceReport, lifetime_report,
    move_reports,
};
use crate::retarget;
use memreuse_ir::backend::Backend;
use memreuse_ir::codes;
use memreuse_ir::diagnostics::Diagnostic;
use memreuse_ir::ops::OutputSpace;
use memreuse_ir::{Expr, Function, FunctionType, MemSpace, Name, StmtKind, Type, VarId};

/// The intervals of each on-chip memory space, spaces in planning (enum) order.
pub fn spaces_of(lifetimes: &Lifetimes) -> Vec<(MemSpace, Vec<usize>)> {
    // Counted first, so no space's list grows (and is copied) on the way.
    let mut counts = [0usize; MemSpace::ALL.len()];
    for iv in &lifetimes.intervals {
        counts[iv.space as usize] += 1;
    }
    let mut by_space: Vec<Vec<usize>> = counts.iter().map(|&n| Vec::with_capacity(n)).collect();
    for (i, iv) in lifetimes.intervals.iter().enumerate() {
        by_space[iv.space as usize].push(i);
    }
    MemSpace::ALL
        .iter()
        .zip(by_space)
        .filter(|&(&space, ref in_space)| space != MemSpace::Ddr && !in_space.is_empty())
        .map(|(&space, in_space)| (space, in_space))
        .collect()
}

/// rules §3.3 puts one `tile.alloc` per base at the top of the body, but PyPTO's MemoryReuse
/// works on MemRefs alone and plans a tile whose base no alloc defines like any other: so do
/// we, and say so at the tile (once per base).
fn warn_of_bases_without_alloc(f: &Function, lifetimes: &Lifetimes, out: &mut Vec<Diagnostic>) {
    // Sized as if every statement were an alloc: growing the set would rehash every name.
    let mut allocated: FxHashSet<&str> =
        FxHashSet::with_capacity_and_hasher(f.body.len(), Default::default());
    allocated.extend(f.body.iter().filter_map(|stmt| match &stmt.kind {
        StmtKind::Assign { target, value } if value.is_alloc_call() => {
            Some(f.vars[*target].name.as_str())
        }
        _ => None,
    }));
    let mut warned = FxHashSet::default();
    for interval in &lifetimes.intervals {
        if allocated.contains(interval.base.as_str()) || !warned.insert(interval.base.as_str()) {
            continue;
        }
        let tile = &f.vars[interval.rep];
        out.push(
            Diagnostic::warning(
                codes::BASE_WITHOUT_ALLOC,
                format!(
                    "tile '{}' is placed on '{}', which no `tile.alloc` in function '{}' defines; it is planned on its MemRef alone, as PyPTO's MemoryReuse does",
                    tile.name, interval.base, f.name
                ),
                tile.span,
            )
            .with_hint("post-InitMemRef bodies start with one `tile.alloc` per base"),
        );
    }
}

/// Whether the pass plans a function at all: an orchestration function is left as it is.
pub fn is_planned(f: &Function) -> bool {
    f.function_type() != FunctionType::Orchestration
}

/// A function ready for planning: after Step 0 (MaterializeSemanticAliases) where configured,
/// with what Step 0 reported. The first planning stage.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// Shared with the input when Step 0 does not run.
    pub function: Arc<Function>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Stage 1: Step 0 where the configuration asks for it (it reads the backend and `exact`).
pub(crate) fn prepare(f: impl Into<Arc<Function>>, config: &PlanConfig) -> Prepared {
    let mut function = f.into();
    let diagnostics = if config.materialize_aliases {
        let f = Arc::make_mut(&mut function);
        retarget::materialize_semantic_aliases(f, config)
    } else {
        Vec::new()
    };
    Prepared {
        function,
        diagnostics,
    }
}

/// One memory space packed: the buffers PyPTO's first-fit-decreasing (with the capacity
/// loop) made, and what the report and the later stages need of them.
#[derive(Clone, Debug, PartialEq)]
pub struct SpacePacking {
    pub space: MemSpace,
    pub buffers: Vec<PackedBuffer>,
    /// The space's intervals (indices into the lifetimes').
    pub in_space: Vec<usize>,
    /// What the capacity loop said (fallback warnings).
    pub diagnostics: Vec<Diagnostic>,
    /// The performance hints of the pipeline groups the capacity made shallower (rules §6.8),
    /// reported after every space's diagnostics.
    pub hints: Vec<Diagnostic>,
    /// The pipeline gate as the capacity loop left it: whether another capacity packs the
    /// same ([`SpacePacking::fits`]).
    gate: PipelineGate,
    /// The allocator's footprint in creation order, which the capacity loop measures.
    footprint: i64,
    reserved_start: i64,
}

impl SpacePacking {
    /// Whether this packing, made by `pack_unbounded` with a known capacity, is also the
    /// packing under `capacity`: every pipeline group affords its requested depth there and
    /// the buffers fit, so the capacity loop would pack exactly this and change nothing.
    pub fn fits(&self, capacity: i64) -> bool {
        self.fit().is_some_and(|fit| fit.holds(Some(capacity)))
    }

    /// The capacities this packing is also the packing at ([`SpaceFit::holds`]): with an
    /// unknown capacity, only an unknown one; with a known one, every capacity
    /// [`SpacePacking::fits`]. `None` for a packing the capacity loop fell back in, which no
    /// other capacity repeats for sure.
    pub fn fit(&self) -> Option<SpaceFit> {
        space_fit(self.space, &self.gate, self.footprint)
    }
}

/// [`SpacePacking::fit`] of a packing of `space` under `gate` whose footprint is `footprint`.
fn space_fit(space: MemSpace, gate: &PipelineGate, footprint: i64) -> Option<SpaceFit> {
    if gate.forced_legacy {
        return None;
    }
    Some(SpaceFit {
        space,
        capacity_known: gate.capacity_known,
        needed: footprint,
        groups: gate
            .groups
            .values()
            .map(|g| GroupFit {
                slot: g.slot,
                stages: g.stages.len(),
                depth: g.depth,
            })
            .collect(),
    })
}

/// The planning capacities of one space at which a plan is exactly the plan made at one of
/// them: what a stored plan records so that it can answer for other capacities (the
/// engine's capacity-independent cache entries).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceFit {
    pub space: MemSpace,
    /// Made with the space's capacity known; the plan holds only while it stays so (an
    /// unknown capacity gates pipelines and checks overflow differently).
    pub capacity_known: bool,
    /// The most bytes the plan takes of the space (its packing's footprint, its layout's):
    /// a smaller capacity packs again or overflows.
    pub needed: i64,
    /// Each pipeline group's depth as packed, which a capacity must afford exactly.
    pub groups: Vec<GroupFit>,
}

/// One pipeline group as a [`SpaceFit`] needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupFit {
    /// The bytes of the group's largest tile.
    pub slot: i64,
    /// How many stages the group has (its requested depth).
    pub stages: usize,
    /// The depth it was packed at.
    pub depth: usize,
}

impl SpaceFit {
    /// The fits of a plan no capacity-driven step read: it holds while every space's
    /// capacity stays unknown.
    pub fn all_unknown() -> Vec<SpaceFit> {
        let unknown = |&space: &MemSpace| SpaceFit {
            space,
            capacity_known: false,
            needed: 0,
            groups: Vec::new(),
        };
        MemSpace::ALL.iter().map(unknown).collect()
    }

    /// Adds to a plan's packing `fits` what its overflow check read: each space the layout
    /// uses needs at least its footprint there.
    pub fn add_layout(
        fits: &mut Vec<SpaceFit>,
        layout: &crate::address::Footprints,
        capacity_known: impl Fn(MemSpace) -> bool,
    ) {
        for space in layout.spaces() {
            let used = layout.footprint(space).unwrap_or(0);
            match fits.iter_mut().find(|fit| fit.space == space) {
                Some(fit) => fit.needed = fit.needed.max(used),
                None => fits.push(SpaceFit {
                    space,
                    capacity_known: capacity_known(space),
                    needed: used,
                    groups: Vec::new(),
                }),
            }
        }
    }

    /// Whether planning with this planning capacity (`SpaceCapacity::planning`) makes the
    /// same packing and passes the same overflow check: the capacity is unknown as it was,
    /// or known as it was, at least [`SpaceFit::needed`], and affording every group the
    /// depth it was packed at.
    pub fn holds(&self, planning: Option<i64>) -> bool {
        match planning {
            None => !self.capacity_known,
            Some(capacity) => {
                self.capacity_known
                    && self.needed <= capacity
                    && self.groups.iter().all(|g| {
                        crate::pack::affordable_depth(g.slot, g.stages, Some(capacity)) == g.depth
                    })
            }
        }
    }
}

/// A buffer's members (interval indices), where each sits inside it, and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedBuffer {
    pub members: Vec<usize>,
    pub placements: Vec<i64>,
    pub subdivided: bool,
    pub size: i64,
    pub pinned: bool,
}

/// Stage 4a: packs one space as if its capacity were unlimited (`capacity_known`: every
/// pipeline group at its requested depth) or unknown (the gate of an unknown capacity). Reads
/// no capacity, so it stays memoized when one changes; [`SpacePacking::fits`] says whether
/// a capacity keeps it.
pub(crate) fn pack_unbounded(
    facts: &ShareFacts<'_>,
    reserved: &Reserved,
    space: MemSpace,
    in_space: &[usize],
    capacity_known: bool,
) -> SpacePacking {
    let (gate, buffers) = unbounded_buffers(facts, space, in_space, capacity_known);
    space_packing(
        reserved.start_of(space),
        in_space,
        buffers,
        gate,
        Vec::new(),
        Vec::new(),
    )
}

/// [`pack_unbounded`]'s gate and buffers.
fn unbounded_buffers(
    facts: &ShareFacts<'_>,
    space: MemSpace,
    in_space: &[usize],
    capacity_known: bool,
) -> (PipelineGate, Vec<Buffer>) {
    let capacity = capacity_known.then_some(i64::MAX);
    let ivs: Vec<_> = in_space
        .iter()
        .map(|&i| &facts.lifetimes.intervals[i])
        .collect();
    let gate = PipelineGate::new(space, &ivs, capacity);
    let buffers = crate::pack::pack(in_space, facts, &gate);
    (gate, buffers)
}

/// Stage 4b: packs one space under a known capacity (rules §6.7–§6.8): the capacity loop's
/// subranges, shedding and fallback, and the hints of what it shed.
pub(crate) fn pack_within(input: &capacity::SpaceInput<'_>) -> SpacePacking {
    let ivs: Vec<_> = input
        .intervals
        .iter()
        .map(|&i| &input.facts.lifetimes.intervals[i])
        .collect();
    let mut gate = PipelineGate::new(input.space, &ivs, Some(input.capacity));
    let first = crate::pack::pack(input.intervals, input.facts, &gate);
    let mut diagnostics = Vec::new();
    let buffers = capacity::pack_within_capacity(input, &mut gate, first, &mut diagnostics);
    let mut hints = Vec::new();
    capacity::perf_hints(
        input.function,
        &gate,
        input.capacity,
        input.reserved_start,
        &mut hints,
    );
    space_packing(
        input.reserved_start,
        input.intervals,
        buffers,
        gate,
        diagnostics,
        hints,
    )
}

/// The packing of the space `gate` gates.
fn space_packing(
    reserved_start: i64,
    in_space: &[usize],
    buffers: Vec<Buffer>,
    gate: PipelineGate,
    diagnostics: Vec<Diagnostic>,
    hints: Vec<Diagnostic>,
) -> SpacePacking {
    SpacePacking {
        space: gate.space,
        footprint: capacity::footprint(&buffers, reserved_start),
        buffers: buffers
            .into_iter()
            .map(|b| PackedBuffer {
                members: b.members,
                placements: b.placements,
                subdivided: b.subdivided,
                size: b.size,
                pinned: b.pinned,
            })
            .collect(),
        in_space: in_space.to_vec(),
        diagnostics,
        hints,
        gate,
        reserved_start,
    }
}

/// What packing made of a function: the reserved windows it planned around and each space's
/// packing, in `MemSpace` order.
#[derive(Clone, Debug)]
pub struct Packed<'a> {
    pub reserved: &'a Reserved,
    /// The lifetimes' member rows, which the space reports name.
    pub member_rows: &'a MemberRows,
    pub spaces: Vec<&'a SpacePacking>,
}

/// Stage 5: the packings applied — rebase, loop carries, if-phis, yield fixup, identity
/// copies, dead allocs (rules §7); addresses are the next stage ([`address`]). The groups of the tiles in `own_buffer` keep
/// their own allocation (the safe planner's repair). `packed` is `None` only for a function
/// with no interval, which has nothing to pack. `safe` (not `--exact`): the safe planner's
/// fixups, where PyPTO's leave a wrong plan (loop carries aligned even without a reuse, nested
/// carries written back, see [`fixup::YieldFixup::safe`]). The fixups follow `rule_set`
/// (seed rules S1–S3).
pub(crate) fn finish(
    prepared: Prepared,
    lifetimes: &Lifetimes,
    packed: Option<Packed<'_>>,
    rules: (Backend, Rules),
    safe: bool,
    own_buffer: &FxHashSet<VarId>,
) -> Result<FunctionPlan, PlanError> {
    let (mut plan, to_do) = finish_deferring(
        prepared,
        lifetimes,
        packed.as_ref(),
        rules,
        safe,
        own_buffer,
    )?;
    if let (Some(to_do), Some(packed)) = (to_do, &packed) {
        report_rows(&mut plan, &to_do, lifetimes, packed);
        report_realigned(&mut plan, to_do, lifetimes, rules, safe);
    }
    Ok(plan)
}

/// What `finish_deferring` leaves of a plan's report for `report_rows` and
/// `report_realigned`: the parts nothing but the report reads (the space and lifetime
/// rows, and whether the warnings of carries aligned otherwise than PyPTO aligns them stand),
/// which a repair's trial, whose report is dropped unless it is the plan emitted, does not
/// need.
#[derive(Clone, Debug)]
pub struct ReportToDo {
    /// Per space packed: the intervals kept on their own allocation.
    kept_own: Vec<Vec<usize>>,
    /// The accumulator if-phi inits rules §7.4 moved, as they were moved: name, space, base.
    coalesced: Vec<CoalescedInit>,
    /// Where carries are aligned otherwise than PyPTO aligns them: the function as PyPTO
    /// aligns it, and the warnings, which stand where the plans differ.
    realigned: Option<(Function, Vec<Diagnostic>)>,
    /// Where in the report's diagnostics those warnings go.
    at: usize,
}

/// [`finish`] without the report rows only the report reads (`None`: the report is whole).
/// [`report_rows`] and [`report_realigned`] make them, from the same lifetimes and packing,
/// on the function returned here (before addresses are written into it).
pub(crate) fn finish_deferring(
    prepared: Prepared,
    lifetimes: &Lifetimes,
    packed: Option<&Packed<'_>>,
    (backend, rule_set): (Backend, Rules),
    safe: bool,
    own_buffer: &FxHashSet<VarId>,
) -> Result<(FunctionPlan, Option<ReportToDo>), PlanError> {
    let Prepared {
        function,
        diagnostics,
    } = prepared;
    let mut f = Arc::unwrap_or_clone(function);
    let mut report = PlanReport {
        diagnostics,
        ..PlanReport::default()
    };
    let Some(packed) = packed else {
        report.lifetimes = lifetime_report(lifetimes);
        report.statement_spans = lifetimes.statement_spans.clone();
        let plan = FunctionPlan {
            function: f,
            report,
        };
        return Ok((plan, None));
    };
    warn_of_bases_without_alloc(&f, lifetimes, &mut report.diagnostics);
    let mut reuse: Vec<Option<fixup::Reuse>> = vec![None; lifetimes.intervals.len()];
    let mut kept_own_per_space = Vec::with_capacity(packed.spaces.len());
    for packing in &packed.spaces {
        report
            .diagnostics
            .extend(packing.diagnostics.iter().cloned());
        let keeps_own = |member: usize| keeps_own_buffer(lifetimes, own_buffer, member);
        let mut kept_own = Vec::new();
        for buffer in &packing.buffers {
            let rep = lifetimes.intervals[buffer.members[0]].rep;
            let placements = buffer.members.iter().zip(&buffer.placements).skip(1);
            for (&member, &placement) in placements {
                if keeps_own(member) {
                    kept_own.push(member);
                    continue;
                }
                let placement = buffer.subdivided.then_some(placement);
                reuse[member] = Some(fixup::Reuse {
                    representative: rep,
                    placement,
                });
            }
        }
        kept_own_per_space.push(kept_own);
    }
    for packing in &packed.spaces {
        report.diagnostics.extend(packing.hints.iter().cloned());
    }

    // Loop carries, if-phis and yields exist only inside a `for` or an `if`, and no fixup adds
    // one: without them, their fixups would walk the body for nothing.
    let control_flow = lifetimes.shape.control_flow;
    let reused = reuse.iter().any(Option::is_some);
    if reused {
        fixup::rebase(&mut f, lifetimes, &reuse)?;
    }
    // PyPTO aligns carries only after a reuse; the safe planner always does, since a repair
    // can leave a nested carry's iter arg off its init's buffer with nothing reused.
    let mut realigned = None;
    if control_flow && (reused || safe) {
        let rule = if safe {
            fixup::CarryAlignment::Safe {
                pypto_aligns: reused,
            }
        } else {
            fixup::CarryAlignment::Pypto
        };
        let alignment = fixup::align_loop_carries(&f.body, &mut f.vars, rule);
        if !alignment.realigned.is_empty() {
            // The function as PyPTO aligns it, where the safe alignment differs somewhere.
            let mut pypto = f.clone();
            alignment.undo(&mut pypto.vars);
            if reused {
                fixup::align_loop_carries(
                    &pypto.body,
                    &mut pypto.vars,
                    fixup::CarryAlignment::Pypto,
                );
            }
            let warnings = alignment
                .realigned
                .iter()
                .map(|r| fixup::realigned_warning(&f.vars, r))
                .collect();
            realigned = Some((pypto, warnings));
        }
    }
    let (plan, coalesced) = fix_control_flow(f, report, (lifetimes, backend, safe, rule_set))?;
    let to_do = ReportToDo {
        kept_own: kept_own_per_space,
        coalesced,
        realigned,
        at: plan.report.diagnostics.len(),
    };
    Ok((plan, Some(to_do)))
}

/// The rows [`finish_deferring`] left out of `plan`'s report, which nothing but the report
/// reads, made from the lifetimes and packing it was finished from: each space's buffers (the
/// groups kept on their own allocation in rows of their own, the accumulator if-phi inits on
/// the accumulator's buffer) and the lifetimes.
pub(crate) fn report_rows(
    plan: &mut FunctionPlan,
    to_do: &ReportToDo,
    lifetimes: &Lifetimes,
    packed: &Packed<'_>,
) {
    let mut spaces = Vec::with_capacity(packed.spaces.len());
    for (packing, kept_own) in packed.spaces.iter().zip(&to_do.kept_own) {
        let mut space_report = space_report(packing, lifetimes, packed.member_rows);
        if !kept_own.is_empty() {
            report_own_buffers(&mut space_report, packing, lifetimes, kept_own);
        }
        spaces.push(space_report);
    }
    let reserved_starts = reserved_starts(packed);
    report_coalesced_inits(&mut spaces, &to_do.coalesced, &reserved_starts);
    let report = &mut plan.report;
    report.spaces = spaces;
    report.lifetimes = lifetime_report(lifetimes);
    report.statement_spans = lifetimes.statement_spans.clone();
}

/// The warnings of carries aligned otherwise than PyPTO aligns them (repairs:
/// `codes::CARRY_ALIGNED_WITHOUT_REUSE`, `codes::CARRY_ALIGNED_TO_WHERE_ITS_INIT_SITS`), put
/// among `plan`'s diagnostics where they change the plan.
pub(crate) fn report_realigned(
    plan: &mut FunctionPlan,
    to_do: ReportToDo,
    lifetimes: &Lifetimes,
    (backend, rule_set): (Backend, Rules),
    safe: bool,
) {
    let Some((pypto, warnings)) = to_do.realigned else {
        return;
    };
    // A carry aligned otherwise than PyPTO aligns it changes PyPTO's decision only where the
    // plan differs for it: the yield fixup often puts the carry there anyway.
    let rules = (lifetimes, backend, safe, rule_set);
    let unchanged = fix_control_flow(pypto, PlanReport::default(), rules)
        .is_ok_and(|(pypto, _)| pypto.function == plan.function);
    if !unchanged {
        let at = to_do.at.min(plan.report.diagnostics.len());
        plan.report.diagnostics.splice(at..at, warnings);
    }
}

/// Where each packed space's layout starts, after its reserved windows.
fn reserved_starts(packed: &Packed<'_>) -> Vec<(MemSpace, i64)> {
    packed
        .spaces
        .iter()
        .map(|packing| (packing.space, packing.reserved_start))
        .collect()
}

/// Whether the interval `member`, packed onto another's buffer, keeps its own allocation: one
/// of its tiles is in `own_buffer`.
pub(crate) fn keeps_own_buffer(
    lifetimes: &Lifetimes,
    own_buffer: &FxHashSet<VarId>,
    member: usize,
) -> bool {
    !own_buffer.is_empty()
        && lifetimes.intervals[member]
            .members
            .iter()
            .any(|v| own_buffer.contains(v))
}

/// The control-flow fixups after the carries are aligned: accumulator if-phis, identity
/// copies, the yield fixup, hoisted allocs, dead allocs (rules §7.4–§7.6); with the inits the
/// accumulator if-phis moved (their report rows, [`report_coalesced_inits`]).
fn fix_control_flow(
    mut f: Function,
    mut report: PlanReport,
    (lifetimes, backend, safe, rule_set): (&Lifetimes, Backend, bool, Rules),
) -> Result<(FunctionPlan, Vec<CoalescedInit>), PlanError> {
    let control_flow = lifetimes.shape.control_flow;
    let mut coalesced = Vec::new();
    if control_flow {
        let inits = fixup::coalesce_accumulator_if_phis(&mut f, backend)?;
        coalesced = coalesced_init_rows(&f, &inits);
    }
    // Identity-copy normalisation acts only from a bare rename, and the fixups add none. Its
    // run before the yield fixup is seed rule S3's.
    let renames = lifetimes.shape.renames;
    if renames && rule_set.seed() {
        fixup::normalize_identity_copies(&f.body, &mut f.vars);
    }
    let inserted = if control_flow {
        fixup::fix_yields(&mut f, safe, rule_set)?
    } else {
        fixup::Inserted::default()
    };
    for &(value, moved, result) in &inserted.shared_copies {
        report
            .diagnostics
            .push(fixup::shared_copy_warning(&f.vars, value, moved, result));
    }
    for &(iter_arg, yielded, moved) in &inserted.nested_writebacks {
        report.diagnostics.push(fixup::nested_writeback_warning(
            &f.vars, iter_arg, yielded, moved,
        ));
    }
    hoist_allocs(&mut f, &inserted.allocs);
    if renames {
        fixup::normalize_identity_copies(&f.body, &mut f.vars);
    }
    report.inserted_moves = move_reports(&inserted.moves, &f.vars);
    report.removed_allocs = cleanup::remove_unused_allocs(&mut f);
    cleanup::strip_pipeline_membership(&mut f.body);
    let plan = FunctionPlan {
        function: f,
        report,
    };
    Ok((plan, coalesced))
}

/// The reserved windows a function's layout starts from (see [`address`]); `None` for a
/// function that gets no addresses.
pub(crate) fn layout_reserved<'r>(
    f: &Function,
    lifetimes: &Lifetimes,
    reserved: Option<&'r Reserved>,
) -> Result<Option<Cow<'r, Reserved>>, PlanError> {
    if !crate::capacity::gets_addresses(f) {
        return Ok(None);
    }
    Ok(Some(match reserved {
        Some(reserved) => Cow::Borrowed(reserved),
        None => Cow::Owned(reserved_windows_if_called(f, lifetimes)?),
    }))
}

/// Stage 6's end (rules §8, after MemoryReuse): the overflow the capacity check found, and
/// with `assign_addresses` the addresses (laid out from `reserved`).
///
/// The overflow is AllocateMemoryAddr's error: with `--addresses` it is ours too. Without,
/// PyPTO's MemoryReuse emits its plan (with §9.2's warning when the fallback failed) and the
/// overflow surfaces only in the next pass, so the plan is emitted and the overflow becomes a
/// warning that says which pass will fail.
pub(crate) fn apply_layout<'a>(
    plan: Cow<'a, FunctionPlan>,
    reserved: &Reserved,
    overflow: Option<PlanError>,
    assign_addresses: bool,
) -> Result<Cow<'a, FunctionPlan>, PlanError> {
    let warning = match overflow {
        Some(error) if assign_addresses => return Err(error),
        Some(error) => Some(crate::address::overflow_left_to_allocate_memory_addr(
            error,
            crate::config::Planner::Pypto,
        )),
        None => None,
    };
    if warning.is_none() && !assign_addresses {
        return Ok(plan);
    }
    let mut plan = plan;
    let planned = plan.to_mut();
    planned.report.diagnostics.extend(warning);
    if assign_addresses {
        let addressing = crate::address::allocate(&planned.function, reserved);
        crate::address::apply(&mut planned.function, &addressing, reserved);
    }
    Ok(plan)
}

/// The reserved windows (rules §2.5); their walk runs only when the analysis saw a call.
pub(crate) fn reserved_windows_if_called(
    f: &Function,
    lifetimes: &Lifetimes,
) -> Result<Reserved, PlanError> {
    if lifetimes.shape.reserve_calls {
        layout::reserved_windows(f)
    } else {
        Ok(Reserved::default())
    }
}

/// What `can_share` consults besides lifetimes (rules §6.1): declared allocations (after the
/// slot check), the 910B hazard, the forbid map, resolved to the function's intervals. Both
/// planners and `explain` prepare it alike.
#[derive(Clone, Debug, PartialEq)]
pub struct SharingRules {
    hazard: Option<crate::analysis::forbid_alias::Hazard>,
    index: ShareIndex,
}

impl SharingRules {
    /// Stage 3 (reads the backend only).
    pub fn of(
        f: &Function,
        lifetimes: &Lifetimes,
        config: &PlanConfig,
    ) -> Result<SharingRules, PlanError> {
        // Declared allocations are rare: the top-level walk for them runs only when the
        // analysis saw one.
        let pinned = if lifetimes.shape.pinned_allocs {
            pinned_bases(f)?
        } else {
            FxHashSet::default()
        };
        check_declared_slots(f, lifetimes, &pinned)?;
        let forbid = build_forbid_map(f, lifetimes, config.backend, config.rules);
        Ok(SharingRules {
            hazard: hazard_inputs(f, config.backend),
            index: ShareIndex::new(f, lifetimes, &forbid, &pinned),
        })
    }

    /// The facts of the function these rules were prepared for, whose lifetimes are
    /// `lifetimes`.
    pub fn facts<'a>(&'a self, lifetimes: &'a Lifetimes) -> ShareFacts<'a> {
        ShareFacts::new(lifetimes, &self.index, self.hazard.as_ref())
    }
}

/// rules §6.1.1: top-level allocs with `pinned=True`.
pub(crate) fn pinned_bases(f: &Function) -> Result<FxHashSet<Name>, PlanError> {
    let mut pinned = FxHashSet::default();
    for stmt in &f.body {
        let StmtKind::Assign { target, value } = &stmt.kind else {
            continue;
        };
        if !value.is_pinned_alloc_call() {
            continue;
        }
        let Some(call) = value.as_call() else {
            continue;
        };
        let name = f.vars[*target].name.clone();
        if call
            .args
            .get(1)
            .and_then(Expr::as_const_int)
            .is_none_or(|size| size <= 0)
        {
            return Err(PlanError::new(
                codes::PINNED_EXTENT,
                format!(
                    "MemoryReuse expected declared allocation '{name}' to have a positive constant byte extent after InitMemRef"
                ),
                stmt.span,
            ));
        }
        pinned.insert(name);
    }
    Ok(pinned)
}

/// rules §6.1.2: tiles bound to one slot of a declared allocation must not be live together.
pub(crate) fn check_declared_slots(
    f: &Function,
    lifetimes: &Lifetimes,
    pinned: &FxHashSet<Name>,
) -> Result<(), PlanError> {
    if pinned.is_empty() {
        return Ok(());
    }
    let mut slots: FxHashMap<(Name, i64), Vec<VarId>> = FxHashMap::default();
    visit_assignments(&f.body, &mut |target, value| {
        let Some(memref) = f.vars[target]
            .ty
            .as_ref()
            .and_then(Type::as_tile)
            .and_then(|t| t.memref.as_ref())
        else {
            return;
        };
        if !pinned.contains(&memref.base) || value.as_var().is_some() {
            return;
        }
        let lands_on_source = value.call_info().is_some_and(|info| {
            info.reuses_input.is_some()
                || (info.output == OutputSpace::Inherit && !info.not_inplace_safe)
        });
        let Some(offset) = memref.const_offset() else {
            return;
        };
        if !lands_on_source {
            slots
                .entry((memref.base.clone(), offset))
                .or_default()
                .push(target);
        }
    });
    let mut keys: Vec<_> = slots.keys().cloned().collect();
    keys.sort();
    for key in keys {
        let mut members = slots[&key].clone();
        members.sort_by_key(|&v| lifetimes.liveness(v).map(|(d, _)| d));
        for pair in members.windows(2) {
            let (Some(prev), Some(cur)) =
                (lifetimes.liveness(pair[0]), lifetimes.liveness(pair[1]))
            else {
                continue;
            };
            if prev.1 > cur.0 {
                let (a, b) = (&f.vars[pair[0]].name, &f.vars[pair[1]].name);
                return Err(PlanError::new(
                    codes::DECLARED_SLOT_CO_LIVE,
                    format!(
                        "Tiles '{a}' and '{b}' are both bound to the same slot of the declared allocation '{}' but are live at the same time ({a}: [{}, {}], {b}: [{}, {}]). Sharing one slot would overwrite data that is still needed — put them on different slots, declare separate allocations, or bind only tiles whose lifetimes do not overlap.",
                        key.0, prev.0, prev.1, cur.0, cur.1
                    ),
                    f.vars[pair[1]].span,
                ));
            }
        }
    }
    Ok(())
}

/// A packing's report (its `capacity` left 0: whoever reports fills it in).
fn space_report(
    packing: &SpacePacking,
    lifetimes: &Lifetimes,
    member_rows: &MemberRows,
) -> SpaceReport {
    let SpacePacking {
        space,
        reserved_start,
        ref in_space,
        ref buffers,
        ..
    } = *packing;
    let intervals = &lifetimes.intervals;
    let live = lifetimes.live_bytes(in_space);
    let sizes: Vec<i64> = buffers.iter().map(|b| b.size).collect();
    // AllocateMemoryAddr's order (rules §8): bases by name, 32-byte aligned.
    let mut by_name: Vec<usize> = (0..buffers.len()).collect();
    by_name.sort_by(|&a, &b| {
        intervals[buffers[a].members[0]]
            .base
            .cmp(&intervals[buffers[b].members[0]].base)
    });
    let (addresses, footprint) = layout::lay_out(reserved_start, by_name.iter().map(|&i| sizes[i]));
    let mut offsets = vec![0; buffers.len()];
    for (&i, address) in by_name.iter().zip(addresses) {
        offsets[i] = address;
    }
    SpaceReport {
        space,
        capacity: None,
        tiles: in_space
            .iter()
            .map(|&i| member_rows.of_interval[i].len())
            .sum(),
        buffers_before: in_space.len(),
        buffers_after: buffers.len(),
        bytes_before: in_space.iter().map(|&i| intervals[i].size).sum(),
        bytes_after: sizes.iter().sum(),
        lower_bound: lifetimes::peak(&live),
        live,
        footprint,
        pypto_footprint: None,
        buffers: buffers
            .iter()
            .enumerate()
            .map(|(i, b)| BufferReport {
                base: intervals[b.members[0]].base.clone(),
                size: sizes[i],
                offset: offsets[i],
                pinned: b.pinned,
                members: {
                    // Counted first: collected from the nested rows, the list would grow.
                    let count = b.members.iter().map(|&m| member_rows.of_interval[m].len());
                    let mut names = Vec::with_capacity(count.sum());
                    names.extend(b.members.iter().flat_map(|&m| member_rows.names(m)));
                    names
                },
            })
            .collect(),
    }
}

/// The space report of a packing some of whose members keep their own allocation (the safe
/// planner's repair): each leaves its buffer's row for a row of its own, and the layout is
/// measured again.
fn report_own_buffers(
    report: &mut SpaceReport,
    packing: &SpacePacking,
    lifetimes: &Lifetimes,
    kept_own: &[usize],
) {
    let rows = MemberRows::of(lifetimes);
    for &member in kept_own {
        let names: Vec<Name> = rows.names(member).collect();
        for buffer in &mut report.buffers {
            buffer.members.retain(|n| !names.contains(n));
        }
        report.buffers.push(BufferReport {
            base: lifetimes.intervals[member].base.clone(),
            size: lifetimes.intervals[member].size,
            offset: 0,
            pinned: false,
            members: names,
        });
    }
    lay_out_again(report, packing.reserved_start);
}

/// A space report's rows laid out again in AllocateMemoryAddr's order (rules §8), as
/// `space_report` lays them out, after rows changed.
fn lay_out_again(report: &mut SpaceReport, reserved_start: i64) {
    let mut by_name: Vec<usize> = (0..report.buffers.len()).collect();
    by_name.sort_by(|&a, &b| report.buffers[a].base.cmp(&report.buffers[b].base));
    let sizes = by_name.iter().map(|&i| report.buffers[i].size);
    let (addresses, footprint) = layout::lay_out(reserved_start, sizes);
    for (&i, address) in by_name.iter().zip(addresses) {
        report.buffers[i].offset = address;
    }
    report.footprint = footprint;
    report.buffers_after = report.buffers.len();
    report.bytes_after = report.buffers.iter().map(|b| b.size).sum();
}

/// An init rules §7.4 moved onto an accumulator's buffer, as the report lists it: its name,
/// space and base right after the move.
type CoalescedInit = (Name, MemSpace, Name);

/// The inits rules §7.4 moved onto an accumulator's buffer, as the report lists them.
fn coalesced_init_rows(f: &Function, inits: &[VarId]) -> Vec<CoalescedInit> {
    inits
        .iter()
        .filter_map(|&init| {
            let Some(Type::Tile(tile)) = &f.vars[init].ty else {
                return None;
            };
            let (memref, space) = (tile.memref.as_ref()?, tile.space?);
            Some((f.vars[init].name.clone(), space, memref.base.clone()))
        })
        .collect()
}

/// The space reports after rules §7.4 moved accumulator if-phi inits onto the accumulator's
/// buffer: each init is listed in that buffer's row, a row left with no member goes (its alloc
/// is removed), and the rows are laid out again.
fn report_coalesced_inits(
    spaces: &mut [SpaceReport],
    inits: &[(Name, MemSpace, Name)],
    reserved_starts: &[(MemSpace, i64)],
) {
    for (name, space, base) in inits {
        let space = *space;
        let Some(report) = spaces.iter_mut().find(|r| r.space == space) else {
            continue;
        };
        if !report.buffers.iter().any(|b| b.base == *base) {
            continue;
        }
        for buffer in &mut report.buffers {
            buffer.members.retain(|n| n != name);
            if buffer.base == *base {
                buffer.members.push(name.clone());
            }
        }
        report.buffers.retain(|b| !b.members.is_empty());
        let reserved_start = reserved_starts.iter().find(|&&(s, _)| s == space);
        lay_out_again(report, reserved_start.map_or(0, |&(_, start)| start));
    }
}
