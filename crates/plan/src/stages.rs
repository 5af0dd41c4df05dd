//! PyPTO's MemoryReuse as stages the engine memoizes one by one: `prepare` (Step 0) →
//! lifetimes (`analysis`) → [`SharingRules::of`] → [`pack_space`] per space → [`finish`]
//! (fixups, cleanup) → [`address`] (AllocateMemoryAddr's check and addresses).

use std::borrow::Cow;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::forbid_alias::{build_forbid_map, hazard_inputs};
use crate::analysis::lifetimes::{self, Lifetimes, visit_assignments};
use crate::capacity;
use crate::cleanup::{self, hoist_allocs};
use crate::config::{PlanConfig, Rules, SpaceCapacity};
use crate::fixup;
use crate::layout::{self, Reserved};
use crate::pack::{Buffer, PipelineGate, ShareFacts};
use crate::report::{
    BufferReport, FunctionPlan, MemberRows, PlanError, PlanReport, SpaceReport, lifetime_report,
    move_reports,
};
use crate::retarget;
use memreuse_ir::backend::Backend;
use memreuse_ir::codes;
use memreuse_ir::diagnostics::Diagnostic;
use memreuse_ir::ops::{OutputSpace, op_info};
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

pub(crate) fn plan_pypto(
    f: Cow<'_, Function>,
    config: &PlanConfig,
    own_buffer: &FxHashSet<VarId>,
) -> Result<FunctionPlan, PlanError> {
    if !is_planned(&f) {
        return Ok(FunctionPlan {
            function: f.into_owned(),
            report: PlanReport::default(),
        });
    }
    PackedInput::of(f.into_owned(), config)?.finish_owned(config, own_buffer)
}

/// PyPTO's plan of a function (`config.planner` is not read), made in place in one go,
/// with the capacities it holds for: the engine's one-shot runs, which never ask for a stage
/// twice, plan so rather than through their memoized stages. The same plan and fits as those
/// stages make (`tests/engine_plans_as_the_planner.rs`), except that the report's spaces
/// name no capacity: the engine's plans are kept without them.
pub fn plan_pypto_once(f: Function, config: &PlanConfig) -> Result<OncePlan, PlanError> {
    if !is_planned(&f) {
        // Left as it is: no capacity is read.
        let plan = FunctionPlan {
            function: f,
            report: PlanReport::default(),
        };
        return Ok(OncePlan {
            plan,
            fits: Some(Vec::new()),
        });
    }
    let (input, fits) = PackedInput::with_fits(f, config)?;
    let PackedInput {
        prepared,
        lifetimes,
        packing,
    } = input;
    let keep_none = FxHashSet::default();
    let (plan, layout) = finish_packed(prepared, &lifetimes, packing.as_ref(), config, &keep_none)?;
    let fits = match config.capacity_aware() {
        // No capacity-driven step ran: the plan holds while none can.
        false => Some(SpaceFit::all_unknown()),
        true => fits.map(|mut fits| {
            if let Some(layout) = &layout {
                let capacity_known = |space| config.space_capacity(space).planning.is_some();
                SpaceFit::add_layout(&mut fits, layout, capacity_known);
            }
            fits
        }),
    };
    Ok(OncePlan { plan, fits })
}

/// A plan [`plan_pypto_once`] made.
#[derive(Clone, Debug)]
pub struct OncePlan {
    pub plan: FunctionPlan,
    /// Where planning again makes the same plan: at every planning capacity at which each
    /// fit holds ([`SpaceFit::holds`]); `None` where it holds at the configured capacities
    /// alone (a space packed under its capacity, or a capacity loop that fell back).
    pub fits: Option<Vec<SpaceFit>>,
}

/// Stages 1–4 of PyPTO's plan of one input — Step 0, lifetimes, sharing rules, every space
/// packed — kept so that plans that differ only in the groups kept on their own allocation
/// (the safe planner's repair trials) finish from one packing: `own_buffer` is read by
/// [`finish`] alone. Only for a function the pass plans ([`is_planned`]).
#[derive(Clone, Debug)]
pub struct PackedInput {
    prepared: Prepared,
    lifetimes: Lifetimes,
    /// The reserved windows, the member rows the space reports name, and each space's
    /// packing; `None` for a function with no interval.
    packing: Option<(Reserved, MemberRows, Vec<SpacePacking>)>,
}

impl PackedInput {
    /// Packs `f` as PyPTO does (`config.planner` is not read); the error is the one planning
    /// `f` returns, whatever the groups kept on their own.
    pub fn of(f: Function, config: &PlanConfig) -> Result<PackedInput, PlanError> {
        PackedInput::with_fits(f, config).map(|(input, _)| input)
    }

    /// [`PackedInput::of`], with the capacities at which every space packs the same
    /// ([`pack_space`]): `None` where one was packed under its capacity.
    fn with_fits(
        f: Function,
        config: &PlanConfig,
    ) -> Result<(PackedInput, Option<Vec<SpaceFit>>), PlanError> {
        let prepared = prepare(f, config);
        let lifetimes = lifetimes::analyze(&prepared.function);
        if lifetimes.intervals.is_empty() {
            let input = PackedInput {
                prepared,
                lifetimes,
                packing: None,
            };
            return Ok((input, Some(Vec::new())));
        }
        let rules = SharingRules::of(&prepared.function, &lifetimes, config)?;
        let reserved = reserved_windows_if_called(&prepared.function, &lifetimes)?;
        let facts = rules.facts(&prepared.function, &lifetimes);
        let member_rows = MemberRows::of(&lifetimes);
        let mut packings = Vec::new();
        let mut fits = Some(Vec::new());
        for (space, in_space) in spaces_of(&lifetimes) {
            let (packing, fit) = pack_space(
                &prepared.function,
                &facts,
                &reserved,
                space,
                &in_space,
                config.space_capacity(space),
                config.rules,
            );
            packings.push(packing);
            // One space packed under its capacity holds the whole plan to the capacities.
            match (&mut fits, fit) {
                (Some(fits), Some(fit)) => fits.push(fit),
                _ => fits = None,
            }
        }
        drop(facts);
        let input = PackedInput {
            prepared,
            lifetimes,
            packing: Some((reserved, member_rows, packings)),
        };
        Ok((input, fits))
    }

    /// Stages 5 and 6: the plan, the groups of the tiles in `own_buffer` on their own
    /// allocation. The packed input stays for the next.
    pub fn finish(
        &self,
        config: &PlanConfig,
        own_buffer: &FxHashSet<VarId>,
    ) -> Result<FunctionPlan, PlanError> {
        let packing = self.packing.as_ref();
        finish_packed(
            self.prepared.clone(),
            &self.lifetimes,
            packing,
            config,
            own_buffer,
        )
        .map(|(plan, _)| with_capacities(plan, config))
    }

    /// [`PackedInput::finish`] for a repair's trial, whose report is dropped unless its plan is
    /// the one emitted: the report's rows only the report reads are left for
    /// [`PackedInput::complete`] (`None`: the plan is whole). With `--addresses` the plan is
    /// made whole at once (its function is addressed after it is finished).
    pub fn finish_deferring(
        &self,
        config: &PlanConfig,
        own_buffer: &FxHashSet<VarId>,
    ) -> Result<(FunctionPlan, Option<ReportToDo>), PlanError> {
        if config.assign_addresses {
            return self.finish(config, own_buffer).map(|plan| (plan, None));
        }
        let packed = self.packed();
        let (plan, to_do) = finish_deferring(
            self.prepared.clone(),
            &self.lifetimes,
            packed.as_ref(),
            (config.backend, config.rules),
            !config.exact,
            own_buffer,
        )?;
        let reserved = self.packing.as_ref().map(|(reserved, _, _)| reserved);
        let (plan, _) = address(plan, &self.lifetimes, reserved, config)?;
        Ok((plan, to_do))
    }

    /// Makes a plan [`PackedInput::finish_deferring`] finished with `config` whole: it is then
    /// the plan [`PackedInput::finish`] makes.
    pub fn complete(
        &self,
        plan: FunctionPlan,
        to_do: Option<ReportToDo>,
        config: &PlanConfig,
    ) -> FunctionPlan {
        let mut plan = plan;
        if let (Some(to_do), Some(packed)) = (to_do, self.packed()) {
            let rules = (config.backend, config.rules);
            complete_report(
                &mut plan,
                to_do,
                &self.lifetimes,
                &packed,
                rules,
                !config.exact,
            );
        }
        with_capacities(plan, config)
    }

    fn packed(&self) -> Option<Packed<'_>> {
        self.packing
            .as_ref()
            .map(|(reserved, member_rows, packings)| Packed {
                reserved,
                member_rows,
                spaces: packings.iter().collect(),
            })
    }

    /// The intervals packed onto another's buffer that [`PackedInput::finish`] keeps on their
    /// own allocation for `own_buffer`, in packing order: the only way `own_buffer` reaches the
    /// plan's function (its report also names the groups kept), so two sets of groups with
    /// the same intervals kept plan the same function.
    pub fn kept_own(&self, own_buffer: &FxHashSet<VarId>) -> Vec<usize> {
        let Some((_, _, packings)) = &self.packing else {
            return Vec::new();
        };
        packings
            .iter()
            .flat_map(|packing| &packing.buffers)
            .flat_map(|buffer| buffer.members.iter().skip(1))
            .copied()
            .filter(|&member| keeps_own_buffer(&self.lifetimes, own_buffer, member))
            .collect()
    }

    /// [`PackedInput::finish`] for the last plan: the function is planned in place.
    fn finish_owned(
        self,
        config: &PlanConfig,
        own_buffer: &FxHashSet<VarId>,
    ) -> Result<FunctionPlan, PlanError> {
        let PackedInput {
            prepared,
            lifetimes,
            packing,
        } = self;
        finish_packed(prepared, &lifetimes, packing.as_ref(), config, own_buffer)
            .map(|(plan, _)| with_capacities(plan, config))
    }
}

/// Stages 5 and 6 from a packing, with the layout the capacity check read (`None` where it
/// read none); the report's spaces name no capacity ([`with_capacities`]).
fn finish_packed(
    prepared: Prepared,
    lifetimes: &Lifetimes,
    packing: Option<&(Reserved, MemberRows, Vec<SpacePacking>)>,
    config: &PlanConfig,
    own_buffer: &FxHashSet<VarId>,
) -> Result<(FunctionPlan, Option<crate::address::Footprints>), PlanError> {
    let packed = packing.map(|(reserved, member_rows, packings)| Packed {
        reserved,
        member_rows,
        spaces: packings.iter().collect(),
    });
    let plan = finish(
        prepared,
        lifetimes,
        packed,
        (config.backend, config.rules),
        !config.exact,
        own_buffer,
    )?;
    let reserved = packing.map(|(reserved, _, _)| reserved);
    address(plan, lifetimes, reserved, config)
}

/// `plan` with each space's configured capacity in its report.
fn with_capacities(mut plan: FunctionPlan, config: &PlanConfig) -> FunctionPlan {
    for space in &mut plan.report.spaces {
        space.capacity = config.space_capacity(space.space).usable;
    }
    plan
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
pub fn prepare(f: impl Into<Arc<Function>>, config: &PlanConfig) -> Prepared {
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
    /// Whether this packing, made by [`pack_unbounded`] with a known capacity, is also the
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

/// Stage 4: packs the intervals of one space (rules §6.2–§6.8) under its capacity: the
/// capacity check of [`pack_unbounded`]'s packing, and [`pack_within`] where that does not
/// fit. It reads only this space's capacity, so a change to another space's leaves it alone.
/// With the packing, the capacities at which it packs the same: the unlimited packing's
/// [`SpacePacking::fit`] where that packing is kept, `None` where the space was packed again
/// under its capacity.
pub fn pack_space(
    f: &Function,
    facts: &ShareFacts<'_>,
    reserved: &Reserved,
    space: MemSpace,
    in_space: &[usize],
    capacity: SpaceCapacity,
    rules: Rules,
) -> (SpacePacking, Option<SpaceFit>) {
    let reserved_start = reserved.start_of(space);
    let (gate, buffers) = unbounded_buffers(facts, space, in_space, capacity.planning.is_some());
    let fit = space_fit(space, &gate, capacity::footprint(&buffers, reserved_start));
    let limit = capacity
        .planning
        .filter(|&limit| !fit.as_ref().is_some_and(|fit| fit.holds(Some(limit))));
    let Some(limit) = limit else {
        let packing = space_packing(
            space,
            reserved_start,
            in_space,
            buffers,
            gate,
            Vec::new(),
            Vec::new(),
        );
        return (packing, fit);
    };
    // The capacity loop starts with a packing under the capacity's gate, which is this one
    // when the capacity affords every pipeline group its requested depth (the buffers only
    // overflow it): packing again would give the same buffers.
    let bounded = bounded_gate(facts, space, in_space, limit);
    let first = if bounded == gate {
        buffers
    } else {
        crate::pack::pack(in_space, facts, &bounded)
    };
    let space_input = (space, in_space, limit, rules);
    let packing = pack_within_from(f, facts, reserved, space_input, bounded, first);
    (packing, None)
}

/// Stage 4a: packs one space as if its capacity were unlimited (`capacity_known`: every
/// pipeline group at its requested depth) or unknown (the gate of an unknown capacity). Reads
/// no capacity, so it stays memoized when one changes; [`SpacePacking::fits`] says whether
/// a capacity keeps it.
pub fn pack_unbounded(
    facts: &ShareFacts<'_>,
    reserved: &Reserved,
    space: MemSpace,
    in_space: &[usize],
    capacity_known: bool,
) -> SpacePacking {
    let (gate, buffers) = unbounded_buffers(facts, space, in_space, capacity_known);
    space_packing(
        space,
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

/// The pipeline gate the capacity loop starts from under a known `capacity`.
fn bounded_gate(
    facts: &ShareFacts<'_>,
    space: MemSpace,
    in_space: &[usize],
    capacity: i64,
) -> PipelineGate {
    let ivs: Vec<_> = in_space
        .iter()
        .map(|&i| &facts.lifetimes.intervals[i])
        .collect();
    PipelineGate::new(space, &ivs, Some(capacity))
}

/// Stage 4b: packs one space under a known `capacity` (rules §6.7–§6.8): the capacity loop's
/// subranges, shedding and fallback, and the hints of what it shed.
pub fn pack_within(
    f: &Function,
    facts: &ShareFacts<'_>,
    reserved: &Reserved,
    space: MemSpace,
    in_space: &[usize],
    capacity: i64,
    rules: Rules,
) -> SpacePacking {
    let gate = bounded_gate(facts, space, in_space, capacity);
    let first = crate::pack::pack(in_space, facts, &gate);
    let space_input = (space, in_space, capacity, rules);
    pack_within_from(f, facts, reserved, space_input, gate, first)
}

/// [`pack_within`] from the capacity loop's start: its gate and `first`, the packing under it.
/// `space_input`: the space, its intervals, its capacity and the rule set.
fn pack_within_from(
    f: &Function,
    facts: &ShareFacts<'_>,
    reserved: &Reserved,
    (space, in_space, capacity, rules): (MemSpace, &[usize], i64, Rules),
    mut gate: PipelineGate,
    first: Vec<Buffer>,
) -> SpacePacking {
    let reserved_start = reserved.start_of(space);
    let input = capacity::SpaceInput {
        space,
        intervals: in_space,
        facts,
        capacity,
        reserved_start,
        function: f,
        function_span: crate::address::head_of(f),
        rules,
    };
    let mut diagnostics = Vec::new();
    let buffers = capacity::pack_within_capacity(&input, &mut gate, first, &mut diagnostics);
    let mut hints = Vec::new();
    capacity::perf_hints(f, &gate, capacity, reserved_start, &mut hints);
    space_packing(
        space,
        reserved_start,
        in_space,
        buffers,
        gate,
        diagnostics,
        hints,
    )
}

fn space_packing(
    space: MemSpace,
    reserved_start: i64,
    in_space: &[usize],
    buffers: Vec<Buffer>,
    gate: PipelineGate,
    diagnostics: Vec<Diagnostic>,
    hints: Vec<Diagnostic>,
) -> SpacePacking {
    SpacePacking {
        space,
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
pub fn finish(
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
        complete_report(&mut plan, to_do, lifetimes, packed, rules, safe);
    }
    Ok(plan)
}

/// What [`finish_deferring`] leaves of a plan's report for [`complete_report`]: the parts
/// nothing but the report reads (the space and lifetime rows, and whether the warnings of
/// carries aligned otherwise than PyPTO aligns them stand), which a repair's trial, whose
/// report is dropped unless it is the plan emitted, does not need.
#[derive(Clone, Debug)]
pub struct ReportToDo {
    /// Per space packed: the intervals kept on their own allocation.
    kept_own: Vec<Vec<usize>>,
    /// The accumulator if-phi seeds rules §7.4 moved, as they were moved: name, space, base.
    coalesced: Vec<CoalescedSeed>,
    /// Where carries are aligned otherwise than PyPTO aligns them: the function as PyPTO
    /// aligns it, and the warnings, which stand where the plans differ.
    realigned: Option<(Function, Vec<Diagnostic>)>,
    /// Where in the report's diagnostics those warnings go.
    at: usize,
}

/// [`finish`] without the report rows only the report reads (`None`: the report is whole).
/// [`complete_report`] makes them, from the same lifetimes and packing, on the function
/// returned here (before addresses are written into it).
pub fn finish_deferring(
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

/// The rows [`finish_deferring`] left out of `plan`'s report, made from the lifetimes and
/// packing it was finished from: each space's buffers (the groups kept on their own allocation
/// in rows of their own, the accumulator if-phi seeds on the accumulator's buffer), the
/// lifetimes, and the warnings of carries aligned otherwise than PyPTO aligns them where that
/// changes the plan.
pub fn complete_report(
    plan: &mut FunctionPlan,
    to_do: ReportToDo,
    lifetimes: &Lifetimes,
    packed: &Packed<'_>,
    (backend, rule_set): (Backend, Rules),
    safe: bool,
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
    report_coalesced_seeds(&mut spaces, &to_do.coalesced, &reserved_starts);
    let report = &mut plan.report;
    report.spaces = spaces;
    report.lifetimes = lifetime_report(lifetimes);
    report.statement_spans = lifetimes.statement_spans.clone();
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
fn keeps_own_buffer(lifetimes: &Lifetimes, own_buffer: &FxHashSet<VarId>, member: usize) -> bool {
    !own_buffer.is_empty()
        && lifetimes.intervals[member]
            .members
            .iter()
            .any(|v| own_buffer.contains(v))
}

/// The control-flow fixups after the carries are aligned: accumulator if-phis, identity
/// copies, the yield fixup, hoisted allocs, dead allocs (rules §7.4–§7.6); with the seeds the
/// accumulator if-phis moved (their report rows, [`report_coalesced_seeds`]).
fn fix_control_flow(
    mut f: Function,
    mut report: PlanReport,
    (lifetimes, backend, safe, rule_set): (&Lifetimes, Backend, bool, Rules),
) -> Result<(FunctionPlan, Vec<CoalescedSeed>), PlanError> {
    let control_flow = lifetimes.shape.control_flow;
    let mut coalesced = Vec::new();
    if control_flow {
        let seeds = fixup::coalesce_accumulator_if_phis(&mut f, backend)?;
        coalesced = coalesced_seed_rows(&f, &seeds);
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

/// Stage 6: AllocateMemoryAddr's part (rules §8): the overflow check and, with
/// `assign_addresses`, the addresses; with the layout the check read (`None` where it read
/// none). `reserved` is the windows packing planned around; `None` for a function with
/// nothing to pack, whose windows are resolved only when it gets addresses (an overlap is an
/// error, AUTO windows get their `base=`).
pub fn address(
    plan: FunctionPlan,
    lifetimes: &Lifetimes,
    reserved: Option<&Reserved>,
    config: &PlanConfig,
) -> Result<(FunctionPlan, Option<crate::address::Footprints>), PlanError> {
    let f = &plan.function;
    let Some(reserved) = layout_reserved(f, lifetimes, reserved)? else {
        return Ok((plan, None));
    };
    // Without a capacity to check or addresses to write, nothing reads the layout.
    let layout = config.capacity_aware().then(|| {
        let addressing = crate::address::allocate(f, &reserved);
        crate::address::Footprints::of(f, &addressing, &reserved)
    });
    let overflow = layout.as_ref().and_then(|layout| {
        layout
            .check(|space| config.space_capacity(space).usable)
            .err()
    });
    let plan = apply_layout(
        Cow::Owned(plan),
        &reserved,
        overflow,
        config.assign_addresses,
    )?;
    Ok((plan.into_owned(), layout))
}

/// The reserved windows a function's layout starts from (see [`address`]); `None` for a
/// function that gets no addresses.
pub fn layout_reserved<'r>(
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
pub fn apply_layout<'a>(
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
pub fn reserved_windows_if_called(
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
/// slot check), the 910B hazard, the forbid map. Both planners and `explain` prepare it alike.
#[derive(Clone, Debug, PartialEq)]
pub struct SharingRules {
    pinned: FxHashSet<Name>,
    hazard: Option<crate::analysis::forbid_alias::Hazard>,
    forbid: crate::analysis::forbid_alias::ForbidMap,
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
        Ok(SharingRules {
            pinned,
            hazard: hazard_inputs(f, config.backend),
            forbid: build_forbid_map(f, lifetimes, config.backend, config.rules),
        })
    }

    pub fn facts<'a>(&'a self, f: &Function, lifetimes: &'a Lifetimes) -> ShareFacts<'a> {
        ShareFacts::new(
            f,
            lifetimes,
            &self.forbid,
            self.hazard.as_ref(),
            &self.pinned,
        )
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
        let lands_on_source = value
            .as_call()
            .and_then(|c| op_info(c.op()))
            .is_some_and(|info| {
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

/// A seed rules §7.4 moved onto an accumulator's buffer, as the report lists it: its name,
/// space and base right after the move.
type CoalescedSeed = (Name, MemSpace, Name);

/// The seeds rules §7.4 moved onto an accumulator's buffer, as the report lists them.
fn coalesced_seed_rows(f: &Function, seeds: &[VarId]) -> Vec<CoalescedSeed> {
    seeds
        .iter()
        .filter_map(|&seed| {
            let Some(Type::Tile(tile)) = &f.vars[seed].ty else {
                return None;
            };
            let (memref, space) = (tile.memref.as_ref()?, tile.space?);
            Some((f.vars[seed].name.clone(), space, memref.base.clone()))
        })
        .collect()
}

/// The space reports after rules §7.4 moved accumulator if-phi seeds onto the accumulator's
/// buffer: each seed is listed in that buffer's row, a row left with no member goes (its alloc
/// is removed), and the rows are laid out again.
fn report_coalesced_seeds(
    spaces: &mut [SpaceReport],
    seeds: &[(Name, MemSpace, Name)],
    reserved_starts: &[(MemSpace, i64)],
) {
    for (name, space, base) in seeds {
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

#[cfg(test)]
mod tests {
    use super::*;
    use memreuse_ir::parse_program;

    /// A plan finished from a kept packing is the plan made from scratch, whatever groups keep
    /// their own allocation, however often the packing is reused, and when its report is made
    /// whole after it is finished (the repair's trials rely on both); and keeping groups apart does change some of these plans, so the comparison is
    /// not between identical plans only.
    #[test]
    fn a_plan_finished_from_a_kept_packing_is_the_plan_from_scratch() {
        let mut changed = 0;
        for text in [
            include_str!("../../../tests/data/repair/r001_packed_tile_keeps_own_buffer.py"),
            include_str!("../../../examples/kernels/flash_attention/31_after_InitMemRef.py"),
            include_str!("../../../examples/kernels/nested_carries/31_after_InitMemRef.py"),
        ] {
            let program = parse_program(text).expect("parses");
            let config = PlanConfig::default();
            for f in program.functions.iter().filter(|f| is_planned(f)) {
                let packed = PackedInput::of(f.clone(), &config).expect("packs");
                let tiles: Vec<VarId> = f
                    .vars
                    .iter()
                    .filter(|(_, v)| matches!(v.ty, Some(Type::Tile(_))))
                    .map(|(id, _)| id)
                    .collect();
                let mut own_sets: Vec<FxHashSet<VarId>> = vec![FxHashSet::default()];
                own_sets.extend(tiles.iter().take(12).map(|&v| [v].into_iter().collect()));
                own_sets.push(tiles.iter().copied().collect());
                let unchanged = crate::plan_function_keeping(f, &config, &own_sets[0]);
                for own in &own_sets {
                    let fresh = crate::plan_function_keeping(f, &config, own);
                    assert_eq!(packed.finish(&config, own), fresh, "{}", f.name);
                    // A trial's plan, its report made whole, is that plan too.
                    let deferred = packed
                        .finish_deferring(&config, own)
                        .map(|(plan, to_do)| packed.complete(plan, to_do, &config));
                    assert_eq!(deferred, fresh, "{} finished deferring", f.name);
                    changed += usize::from(fresh != unchanged);
                }
            }
        }
        assert!(changed > 0, "no group kept apart changed a plan");
    }
}
