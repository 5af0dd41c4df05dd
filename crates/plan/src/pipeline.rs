//! PyPTO's MemoryReuse composed once: which stage reads which results and which aspects of
//! the configuration. Each stage here is written against [`StageResults`], the results of the
//! stages before it; [`Planning`] computes them directly (a plan made in one go, or a
//! packing kept for a repair's trials), and the engine (`memreuse::db`) memoizes the same
//! stages as salsa queries, so a configuration change re-runs only the stages that read it.
//!
//! ```text
//! input ─► prepared ─► lifetimes ─► sharing_rules ─► packing(space) ─► fitted(space)
//!          (Step 0)                 (backend)        (capacity known?)  (the capacity)
//!      ─► fixed ─► layout ─► overflow(space) ─► addressed (─► fits: where the plan holds)
//!      (backend)            (the capacity)      (--addresses)
//! ```
//!
//! The stages themselves (what each computes) are in [`crate::stages`].

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::sync::Arc;

use rustc_hash::{FxBuildHasher, FxHashSet};

use crate::address::{self, Footprints};
use crate::analysis::lifetimes::{self, Lifetimes};
use crate::config::{LayoutSearch, PlanConfig, Rules};
use crate::layout::Reserved;
use crate::report::{FunctionPlan, MemberRows, PlanError, PlanReport};
use crate::stages::{
    self, Packed, Prepared, ReportToDo, SharingRules, SpaceFit, SpacePacking, spaces_of,
};
use memreuse_ir::backend::Backend;
use memreuse_ir::codes;
use memreuse_ir::{Function, MemSpace, Span, VarId};

/// The results of the stages before a stage, and the aspects of the configuration stages
/// read, one by one (the engine tracks which stage read which). `None`: the function is
/// gone (the engine's stale manifest), and so is every later result.
pub trait StageResults {
    fn materialize_aliases(&self) -> bool;
    fn backend(&self) -> Backend;
    fn rules(&self) -> Rules;
    fn exact(&self) -> bool;
    /// The capacity the capacity-driven steps plan a space against (`None`: unknown).
    fn planning_capacity(&self, space: MemSpace) -> Option<i64>;
    /// Whether [`StageResults::planning_capacity`] is known: all that packing reads of it.
    fn capacity_known(&self, space: MemSpace) -> bool;
    /// Whether the capacity-driven steps run at all (`PlanConfig::capacity_aware`).
    fn capacity_aware(&self) -> bool;
    fn assign_addresses(&self) -> bool;

    /// The prepared function, for the stages that read it.
    fn prepared_function(&self) -> Option<Arc<Function>>;
    /// Stage 1's result for stage 5, which plans it in place: a copy where it is kept for
    /// more plans, itself where nothing asks for it again (a plan made in one go). Asked for
    /// after every other result stage 5 reads.
    fn prepared_to_finish(&self) -> Option<Prepared>;
    fn lifetimes(&self) -> Option<&Lifetimes>;
    fn sharing_rules(&self) -> Option<Result<&PackingRules, PlanError>>;
    /// The lifetimes' member rows, which the space reports name.
    fn member_rows(&self) -> Option<Cow<'_, MemberRows>>;
    fn packing(&self, space: MemSpace) -> Option<&Arc<SpacePacking>>;
    fn fitted(&self, space: MemSpace) -> Option<&Arc<SpacePacking>>;
    /// The layout of `planned`, the fixed function, laid out from `reserved`.
    fn layout(&self, planned: &Function, reserved: &Reserved) -> Option<Cow<'_, Footprints>>;
    /// The overflow of `space` in `layout` (the function's [`StageResults::layout`]).
    fn overflow(&self, space: MemSpace, layout: &Footprints) -> Option<PlanError>;
}

/// What a plan asks beyond its configuration.
#[derive(Clone, Copy, Debug)]
pub struct PlanOptions<'a> {
    /// The sharing groups of these tiles keep their own allocation instead of joining another
    /// group's buffer (the safe planner's repair).
    pub own_buffer: &'a FxHashSet<VarId>,
    /// How hard the offset planner looks for a small layout (a repair's trial does without
    /// its search).
    pub search: LayoutSearch,
}

/// No tile kept on its own allocation.
static KEEP_NONE: FxHashSet<VarId> = FxHashSet::with_hasher(FxBuildHasher);

impl Default for PlanOptions<'_> {
    fn default() -> Self {
        PlanOptions {
            own_buffer: &KEEP_NONE,
            search: LayoutSearch::Full,
        }
    }
}

/// Stage 3's result: what `can_share` consults besides lifetimes, the reserved windows
/// packing plans around, and the spaces it packs.
#[derive(Clone, Debug, PartialEq)]
pub struct PackingRules {
    pub sharing: SharingRules,
    pub reserved: Reserved,
    /// Each on-chip space with intervals, and its intervals, in planning order
    /// ([`spaces_of`]).
    pub spaces: Vec<(MemSpace, Vec<usize>)>,
}

impl PackingRules {
    /// The intervals of `space`.
    pub fn in_space(&self, space: MemSpace) -> &[usize] {
        let found = self.spaces.iter().find(|(s, _)| *s == space);
        found.map_or(&[], |(_, in_space)| in_space)
    }
}

/// Stage 1: Step 0 where the function's configuration asks for it, reading the backend,
/// `exact` and the rule set only then.
pub fn prepared<S: StageResults + ?Sized>(s: &S, input: Arc<Function>) -> Prepared {
    let config = match s.materialize_aliases() {
        true => PlanConfig {
            materialize_aliases: true,
            backend: s.backend(),
            exact: s.exact(),
            rules: s.rules(),
            ..PlanConfig::default()
        },
        false => PlanConfig::default(),
    };
    stages::prepare(input, &config)
}

/// Stage 2: lifetimes (rules §5), from the prepared function alone.
pub fn lifetimes<S: StageResults + ?Sized>(s: &S) -> Option<Lifetimes> {
    let f = s.prepared_function()?;
    Some(lifetimes::analyze(&f))
}

/// Stage 3: forbid-alias sets, hazards, declared allocations and reserved windows (rules
/// §6.1, §2.5); reads the backend and the rule set (seed rule S5).
pub fn sharing_rules<S: StageResults + ?Sized>(s: &S) -> Option<Result<PackingRules, PlanError>> {
    let f = s.prepared_function()?;
    let lifetimes = s.lifetimes()?;
    let config = PlanConfig {
        backend: s.backend(),
        rules: s.rules(),
        ..PlanConfig::default()
    };
    Some(
        SharingRules::of(&f, lifetimes, &config).and_then(|sharing| {
            let reserved = stages::reserved_windows_if_called(&f, lifetimes)?;
            let spaces = spaces_of(lifetimes);
            Ok(PackingRules {
                sharing,
                reserved,
                spaces,
            })
        }),
    )
}

/// The member rows of the lifetime report.
pub fn member_rows<S: StageResults + ?Sized>(s: &S) -> Option<MemberRows> {
    Some(MemberRows::of(s.lifetimes()?))
}

/// Stage 4a: one memory space packed as if its capacity were unlimited (or unknown, when it
/// is) (rules §6.2–§6.6). Reads only whether the capacity is known.
pub fn packing<S: StageResults + ?Sized>(s: &S, space: MemSpace) -> Option<SpacePacking> {
    let lifetimes = s.lifetimes()?;
    let Ok(rules) = s.sharing_rules()? else {
        return None;
    };
    let facts = rules.sharing.facts(lifetimes);
    let (in_space, known) = (rules.in_space(space), s.capacity_known(space));
    Some(stages::pack_unbounded(
        &facts,
        &rules.reserved,
        space,
        in_space,
        known,
    ))
}

/// Stage 4b, the capacity check (rules §6.7–§6.8): the unlimited packing where it fits the
/// space's capacity at every requested pipeline depth, else the space packed again under it.
pub fn fitted<S: StageResults + ?Sized>(s: &S, space: MemSpace) -> Option<Arc<SpacePacking>> {
    let unbounded = s.packing(space)?;
    let capacity = match s.planning_capacity(space) {
        Some(capacity) if !unbounded.fits(capacity) => capacity,
        _ => return Some(Arc::clone(unbounded)),
    };
    let f = s.prepared_function()?;
    let lifetimes = s.lifetimes()?;
    let Ok(rules) = s.sharing_rules()? else {
        return None;
    };
    let packing = stages::pack_within(&crate::capacity::SpaceInput {
        space,
        intervals: rules.in_space(space),
        facts: &rules.sharing.facts(lifetimes),
        capacity,
        reserved_start: rules.reserved.start_of(space),
        function: &f,
        function_span: address::head_of(&f),
        rules: s.rules(),
    });
    Some(Arc::new(packing))
}

/// Stages 1–4 as stage 5 reads them.
fn with_packed<S: StageResults + ?Sized, T>(
    s: &S,
    then: impl FnOnce(&Lifetimes, Option<&Packed<'_>>) -> T,
) -> Option<Result<T, PlanError>> {
    let lifetimes = s.lifetimes()?;
    if lifetimes.intervals.is_empty() {
        return Some(Ok(then(lifetimes, None)));
    }
    let rules = match s.sharing_rules()? {
        Ok(rules) => rules,
        Err(err) => return Some(Err(err)),
    };
    let mut spaces = Vec::with_capacity(rules.spaces.len());
    for &(space, _) in &rules.spaces {
        spaces.push(&**s.fitted(space)?);
    }
    let member_rows = s.member_rows()?;
    let packed = Packed {
        reserved: &rules.reserved,
        member_rows: &member_rows,
        spaces,
    };
    Some(Ok(then(lifetimes, Some(&packed))))
}

/// Stage 5: the packings applied (rules §7); reads the backend, `exact` (the safe fixups)
/// and the rule set. With `deferred`, the report's rows only the report reads are left for
/// [`complete`] (a repair's trial, most of whose plans are dropped), unless `--addresses`
/// writes the function's addresses after it.
pub fn fixed<S: StageResults + ?Sized>(
    s: &S,
    options: &PlanOptions<'_>,
    deferred: bool,
) -> Option<Result<(FunctionPlan, Option<ReportToDo>), PlanError>> {
    let rules = (s.backend(), s.rules());
    let safe = !s.exact();
    let deferred = deferred && !s.assign_addresses();
    let own = options.own_buffer;
    let finished = with_packed(s, |lifetimes, packed| {
        let prepared = s.prepared_to_finish()?;
        Some(match deferred {
            true => stages::finish_deferring(prepared, lifetimes, packed, rules, safe, own),
            false => stages::finish(prepared, lifetimes, packed.cloned(), rules, safe, own)
                .map(|plan| (plan, None)),
        })
    })?;
    match finished {
        Ok(finished) => finished,
        Err(err) => Some(Err(err)),
    }
}

/// What completing a plan's report makes of what [`fixed`] deferred.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// Everything: the plan is then the plan finished whole.
    Whole,
    /// Its diagnostics (the warnings of carries aligned otherwise than PyPTO aligns them,
    /// which are repairs); the space and lifetime rows stay empty, for a caller that reads
    /// only the diagnostics (PyPTO's pass).
    Diagnostics,
}

/// The parts of the report [`fixed`] deferred that `completion` asks for, made for `plan`.
pub fn complete<S: StageResults + ?Sized>(
    s: &S,
    mut plan: FunctionPlan,
    to_do: Option<ReportToDo>,
    completion: Completion,
) -> FunctionPlan {
    let Some(to_do) = to_do else {
        return plan;
    };
    let rules = (s.backend(), s.rules());
    let safe = !s.exact();
    with_packed(s, |lifetimes, packed| {
        let Some(packed) = packed else {
            return;
        };
        if completion == Completion::Whole {
            stages::report_rows(&mut plan, &to_do, lifetimes, packed);
        }
        stages::report_realigned(&mut plan, to_do, lifetimes, rules, safe);
    });
    plan
}

/// The intervals packed onto another's buffer that a plan keeping the groups of `own_buffer`
/// apart keeps on their own allocation, in packing order: the only way `own_buffer` reaches
/// the plan's function (its report also names the groups kept), so two sets of groups with the
/// same intervals kept plan the same function.
pub fn kept_own<S: StageResults + ?Sized>(
    s: &S,
    own_buffer: &FxHashSet<VarId>,
) -> Option<Vec<usize>> {
    let kept = with_packed(s, |lifetimes, packed| {
        let Some(packed) = packed else {
            return Vec::new();
        };
        packed
            .spaces
            .iter()
            .flat_map(|packing| &packing.buffers)
            .flat_map(|buffer| buffer.members.iter().skip(1))
            .copied()
            .filter(|&member| stages::keeps_own_buffer(lifetimes, own_buffer, member))
            .collect()
    });
    kept?.ok()
}

/// The reserved windows the layout of `planned`, the fixed function, starts from; `None` for
/// a function that gets no addresses. A function with nothing packed resolves them only here.
pub fn layout_reserved<'s, S: StageResults + ?Sized>(
    s: &'s S,
    planned: &Function,
) -> Option<Result<Option<Cow<'s, Reserved>>, PlanError>> {
    let lifetimes = s.lifetimes()?;
    let packed = match lifetimes.intervals.is_empty() {
        true => None,
        false => match s.sharing_rules()? {
            Ok(rules) => Some(&rules.reserved),
            Err(err) => return Some(Err(err)),
        },
    };
    Some(stages::layout_reserved(planned, lifetimes, packed))
}

/// Stage 6a: where AllocateMemoryAddr puts every base of `planned` (rules §8) and each
/// space's footprint; reads no capacity.
pub fn layout(planned: &Function, reserved: &Reserved) -> Footprints {
    let addressing = address::allocate(planned, reserved);
    Footprints::of(planned, &addressing, reserved)
}

/// Stage 6b, the overflow check of one space (rules §8).
pub fn overflow<S: StageResults + ?Sized>(
    s: &S,
    space: MemSpace,
    layout: &Footprints,
) -> Option<PlanError> {
    layout.overflow(space, s.planning_capacity(space)?)
}

/// A plan with AllocateMemoryAddr's part done, and the layout its overflow check read.
pub struct Addressed<'p, 's> {
    pub plan: Cow<'p, FunctionPlan>,
    pub layout: Option<Cow<'s, Footprints>>,
}

/// Stage 6: AllocateMemoryAddr's part of `fixed`, stage 5's plan (rules §8): the overflow
/// check (where the capacity-driven steps run) and, with `--addresses`, the addresses.
pub fn addressed<'p, 's, S: StageResults + ?Sized>(
    s: &'s S,
    fixed: Cow<'p, FunctionPlan>,
) -> Option<Result<Addressed<'p, 's>, PlanError>> {
    // The reserved windows may be wrong even where nothing reads the layout.
    let reserved = match layout_reserved(s, &fixed.function)? {
        Err(err) => return Some(Err(err)),
        Ok(None) => {
            let layout = None;
            return Some(Ok(Addressed {
                plan: fixed,
                layout,
            }));
        }
        Ok(Some(reserved)) => reserved,
    };
    let mut read = None;
    if s.capacity_aware() {
        read = Some(s.layout(&fixed.function, &reserved)?);
    }
    let overflow = read
        .as_ref()
        .and_then(|layout| layout.spaces().find_map(|space| s.overflow(space, layout)));
    let assign_addresses = s.assign_addresses();
    let plan = stages::apply_layout(fixed, &reserved, overflow, assign_addresses);
    Some(plan.map(|plan| Addressed { plan, layout: read }))
}

/// Where planning again makes the same plan, whose overflow check read `layout`: at every
/// planning capacity at which each space's unlimited packing is its packing and its layout
/// fits ([`SpaceFit::holds`]); `None` where it holds at the configured capacities alone (a
/// packing the capacity loop fell back in). Reads no capacity, only whether each is known.
pub fn fits<S: StageResults + ?Sized>(s: &S, layout: Option<&Footprints>) -> Option<Vec<SpaceFit>> {
    if !s.capacity_aware() {
        // No capacity-driven step ran: the plan holds while none can.
        return Some(SpaceFit::all_unknown());
    }
    let lifetimes = s.lifetimes()?;
    let mut fits = Vec::new();
    if !lifetimes.intervals.is_empty() {
        for (space, _) in spaces_of(lifetimes) {
            fits.push(s.packing(space)?.fit()?);
        }
    }
    if let Some(layout) = layout {
        SpaceFit::add_layout(&mut fits, layout, |space| s.capacity_known(space));
    }
    Some(fits)
}

/// One function's stages computed directly, each once, as the plan asks for them: the plain
/// [`StageResults`]. [`Planning::once`] makes one plan, in place; [`Planning::kept`] keeps
/// stages 1–4 for plans that differ only in the groups kept on their own allocation (the safe
/// planner's repair trials).
pub struct Planning {
    config: PlanConfig,
    /// Whether plans after the first are made: the prepared function is then copied.
    kept: bool,
    /// The input until it is prepared.
    input: RefCell<Option<Arc<Function>>>,
    prepared: RefCell<Option<Prepared>>,
    lifetimes: OnceCell<Option<Lifetimes>>,
    sharing_rules: OnceCell<Option<Result<PackingRules, PlanError>>>,
    member_rows: OnceCell<Option<MemberRows>>,
    packing: [OnceCell<Option<Arc<SpacePacking>>>; MemSpace::ALL.len()],
    fitted: [OnceCell<Option<Arc<SpacePacking>>>; MemSpace::ALL.len()],
}

/// A plan [`Planning::plan_once`] made.
#[derive(Clone, Debug)]
pub struct OncePlan {
    pub plan: FunctionPlan,
    /// Where planning again makes the same plan ([`fits`]).
    pub fits: Option<Vec<SpaceFit>>,
}

impl Planning {
    /// For one plan of `input`, made in place where nothing else holds it.
    pub fn once(input: Arc<Function>, config: &PlanConfig) -> Planning {
        Planning::new(input, config, false)
    }

    /// For several plans of `input` (PyPTO's, `config.planner` is not read), finished from one
    /// packing.
    pub fn kept(input: Arc<Function>, config: &PlanConfig) -> Planning {
        Planning::new(input, config, true)
    }

    fn new(input: Arc<Function>, config: &PlanConfig, kept: bool) -> Planning {
        Planning {
            config: *config,
            kept,
            input: RefCell::new(Some(input)),
            prepared: RefCell::new(None),
            lifetimes: OnceCell::new(),
            sharing_rules: OnceCell::new(),
            member_rows: OnceCell::new(),
            packing: Default::default(),
            fitted: Default::default(),
        }
    }

    /// PyPTO's plan (`config.planner` is not read), each space's capacity in its report.
    pub fn plan(&self, options: &PlanOptions<'_>) -> Result<FunctionPlan, PlanError> {
        let plan = match self.unplanned() {
            Some(plan) => plan,
            None => self.pypto(options, false)?.0.plan.into_owned(),
        };
        Ok(self.with_capacities(plan))
    }

    /// PyPTO's plan (`config.planner` is not read) with where it holds ([`fits`]); the
    /// report's spaces name no capacity (the engine's plans are kept without them).
    pub fn plan_once(&self) -> Result<OncePlan, PlanError> {
        if let Some(plan) = self.unplanned() {
            // Left as it is: no capacity is read.
            let fits = Some(Vec::new());
            return Ok(OncePlan { plan, fits });
        }
        let (addressed, _) = self.pypto(&PlanOptions::default(), false)?;
        let fits = fits(self, addressed.layout.as_deref());
        Ok(OncePlan {
            plan: addressed.plan.into_owned(),
            fits,
        })
    }

    /// PyPTO's plan for a repair's trial, the groups of the tiles in `own_buffer` on their own
    /// allocation: the report's rows only the report reads are left for
    /// [`Planning::complete`].
    pub fn trial(
        &self,
        own_buffer: &FxHashSet<VarId>,
    ) -> Result<(FunctionPlan, Option<ReportToDo>), PlanError> {
        if let Some(plan) = self.unplanned() {
            return Ok((plan, None));
        }
        let options = PlanOptions {
            own_buffer,
            ..PlanOptions::default()
        };
        let (addressed, to_do) = self.pypto(&options, true)?;
        Ok((addressed.plan.into_owned(), to_do))
    }

    /// Completes the report of a plan [`Planning::trial`] made as `completion` asks: made
    /// whole, it is then the plan [`Planning::plan`] makes.
    pub fn complete(
        &self,
        plan: FunctionPlan,
        to_do: Option<ReportToDo>,
        completion: Completion,
    ) -> FunctionPlan {
        self.with_capacities(complete(self, plan, to_do, completion))
    }

    /// [`kept_own`] of this input's packing; `None` where the input does not pack.
    pub fn kept_own(&self, own_buffer: &FxHashSet<VarId>) -> Option<Vec<usize>> {
        kept_own(self, own_buffer)
    }

    /// PyPTO's plan of a function the pass plans ([`stages::is_planned`]).
    fn pypto(
        &self,
        options: &PlanOptions<'_>,
        deferred: bool,
    ) -> Result<(Addressed<'static, '_>, Option<ReportToDo>), PlanError> {
        let (fixed, to_do) = fixed(self, options, deferred).ok_or_else(missing)??;
        let addressed = addressed(self, Cow::Owned(fixed)).ok_or_else(missing)??;
        Ok((addressed, to_do))
    }

    /// The input as the pass leaves a function it does not plan (an orchestration function);
    /// `None` for one it plans.
    fn unplanned(&self) -> Option<FunctionPlan> {
        let mut input = self.input.borrow_mut();
        if input.as_deref().is_none_or(stages::is_planned) {
            return None;
        }
        let function = match self.kept {
            true => input.as_deref()?.clone(),
            false => Arc::unwrap_or_clone(input.take()?),
        };
        Some(FunctionPlan {
            function,
            report: PlanReport::default(),
        })
    }

    fn with_capacities(&self, mut plan: FunctionPlan) -> FunctionPlan {
        for space in &mut plan.report.spaces {
            space.capacity = self.config.space_capacity(space.space).usable;
        }
        plan
    }
}

/// A stage missing where it cannot be: asked for after it was handed over (a plan made in one
/// go asked for twice), or of a function its earlier stages had.
pub fn missing() -> PlanError {
    PlanError::new(
        codes::STALE_MANIFEST,
        "internal: a planning stage is missing",
        Span::default(),
    )
}

impl StageResults for Planning {
    fn materialize_aliases(&self) -> bool {
        self.config.materialize_aliases
    }

    fn backend(&self) -> Backend {
        self.config.backend
    }

    fn rules(&self) -> Rules {
        self.config.rules
    }

    fn exact(&self) -> bool {
        self.config.exact
    }

    fn planning_capacity(&self, space: MemSpace) -> Option<i64> {
        self.config.planning_capacity(space)
    }

    fn capacity_known(&self, space: MemSpace) -> bool {
        self.config.planning_capacity(space).is_some()
    }

    fn capacity_aware(&self) -> bool {
        self.config.capacity_aware()
    }

    fn assign_addresses(&self) -> bool {
        self.config.assign_addresses
    }

    fn prepared_function(&self) -> Option<Arc<Function>> {
        if self.prepared.borrow().is_none() {
            // Prepared once: the input is not held after, so a plan is made in place.
            let input = self.input.borrow_mut().take()?;
            let prepared = prepared(self, input);
            *self.prepared.borrow_mut() = Some(prepared);
        }
        let prepared = self.prepared.borrow();
        prepared.as_ref().map(|p| Arc::clone(&p.function))
    }

    fn prepared_to_finish(&self) -> Option<Prepared> {
        self.prepared_function()?;
        match self.kept {
            true => self.prepared.borrow().clone(),
            false => self.prepared.borrow_mut().take(),
        }
    }

    fn lifetimes(&self) -> Option<&Lifetimes> {
        self.lifetimes.get_or_init(|| lifetimes(self)).as_ref()
    }

    fn sharing_rules(&self) -> Option<Result<&PackingRules, PlanError>> {
        let rules = self.sharing_rules.get_or_init(|| sharing_rules(self));
        rules
            .as_ref()
            .map(|rules| rules.as_ref().map_err(Clone::clone))
    }

    fn member_rows(&self) -> Option<Cow<'_, MemberRows>> {
        let rows = self.member_rows.get_or_init(|| member_rows(self));
        rows.as_ref().map(Cow::Borrowed)
    }

    fn packing(&self, space: MemSpace) -> Option<&Arc<SpacePacking>> {
        let cell = &self.packing[space as usize];
        cell.get_or_init(|| packing(self, space).map(Arc::new))
            .as_ref()
    }

    fn fitted(&self, space: MemSpace) -> Option<&Arc<SpacePacking>> {
        let cell = &self.fitted[space as usize];
        cell.get_or_init(|| fitted(self, space)).as_ref()
    }

    fn layout(&self, planned: &Function, reserved: &Reserved) -> Option<Cow<'_, Footprints>> {
        Some(Cow::Owned(layout(planned, reserved)))
    }

    fn overflow(&self, space: MemSpace, layout: &Footprints) -> Option<PlanError> {
        overflow(self, space, layout)
    }
}
