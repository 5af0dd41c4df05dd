//! memreuse-plan: PyPTO's MemoryReuse decision. The analyses (`analysis`: lifetimes,
//! forbid-alias sets and hazards) and the planning stages over them: Step 0 retargeting,
//! packing sharing groups into buffers, yield/if fixups, dead-alloc cleanup, capacity fallback,
//! addresses, the offset planner (over `memreuse-solve`) and `explain` (rules §4–§8, §13, §14).
//! Pure: no files, no salsa, no threads. It never calls the checkers (`memreuse-verify`).

pub mod address;
pub mod analysis;
pub mod capacity;
pub mod cleanup;
pub mod config;
pub mod explain;
pub mod fixup;
pub mod isolate;
pub mod layout;
mod occupancy;
pub mod offsets;
pub mod pack;
pub mod report;
pub mod retarget;
pub mod stages;
mod timeline;

use std::borrow::Cow;

use rustc_hash::FxHashSet;

use memreuse_ir::{Function, VarId};
use offsets::LayoutSearch;

pub use analysis::lifetimes::{LiveStep, live_bytes_at};
pub use config::{PlanConfig, Planner, Rules, SpaceCapacity};
pub use layout::align32;
pub use report::{
    BufferReport, FunctionPlan, LifetimeReport, MemberRows, MoveReport, PlanError, PlanReport,
    SpaceReport,
};
pub use stages::{
    GroupFit, OncePlan, Packed, PackedBuffer, PackedInput, Prepared, ReportToDo, SharingRules,
    SpaceFit, SpacePacking, address, apply_layout, finish, is_planned, layout_reserved, pack_space,
    pack_unbounded, pack_within, plan_pypto_once, prepare, reserved_windows_if_called, spaces_of,
};

/// Changes whenever the planner's output can change for the same input: a digest of what the
/// planner makes of every fixture and bundled kernel, pinned by `tests/planner_version.rs`
/// (which prints the new value when the output changed). Cache keys include it.
pub const PLANNER_VERSION: &str = "9c0bebb0d0b1b2e3";

/// Plans one function as `config.planner` says (PyPTO's MemoryReuse by default).
pub fn plan_function(input: &Function, config: &PlanConfig) -> Result<FunctionPlan, PlanError> {
    plan_with(
        Cow::Borrowed(input),
        config,
        &FxHashSet::default(),
        LayoutSearch::Full,
    )
}

fn plan_with(
    f: Cow<'_, Function>,
    config: &PlanConfig,
    own_buffer: &FxHashSet<VarId>,
    search: LayoutSearch,
) -> Result<FunctionPlan, PlanError> {
    match config.planner {
        Planner::Pypto => stages::plan_pypto(f, config, own_buffer),
        Planner::Dsa => offsets::plan_function(&f, config, own_buffer, search),
        Planner::None => Ok(FunctionPlan {
            function: f.into_owned(),
            report: PlanReport::default(),
        }),
    }
}

/// [`plan_function`] for a caller that no longer needs its input: the plan is made in place,
/// without the clone (a fifth of planning a 1,000-tile function).
pub fn plan_function_owned(f: Function, config: &PlanConfig) -> Result<FunctionPlan, PlanError> {
    plan_with(
        Cow::Owned(f),
        config,
        &FxHashSet::default(),
        LayoutSearch::Full,
    )
}

/// PyPTO's plan, except that the sharing groups of the tiles in `own_buffer` keep their own
/// allocation instead of joining another group's buffer (the safe planner's repair).
pub fn plan_function_keeping(
    f: &Function,
    config: &PlanConfig,
    own_buffer: &FxHashSet<VarId>,
) -> Result<FunctionPlan, PlanError> {
    plan_with(Cow::Borrowed(f), config, own_buffer, LayoutSearch::Full)
}

/// [`plan_function_keeping`] for a safe-planning trial, which asks only whether an edit keeps
/// two tiles apart: the offset planner lays each space out without its search (PyPTO's
/// planner is unchanged). The repaired function is planned in full once the trials end.
pub fn plan_function_trial(
    f: &Function,
    config: &PlanConfig,
    own_buffer: &FxHashSet<VarId>,
) -> Result<FunctionPlan, PlanError> {
    plan_with(Cow::Borrowed(f), config, own_buffer, LayoutSearch::Greedy)
}

/// Plans every function of a program; the first planning error stops it, naming the function.
pub fn plan_program(
    program: &memreuse_ir::Program,
    config: &PlanConfig,
) -> Result<(memreuse_ir::Program, Vec<PlanReport>), (usize, PlanError)> {
    let mut functions = Vec::with_capacity(program.functions.len());
    let mut reports = Vec::with_capacity(program.functions.len());
    for (index, function) in program.functions.iter().enumerate() {
        let plan = plan_function(function, config).map_err(|e| (index, e))?;
        functions.push(plan.function);
        reports.push(plan.report);
    }
    let planned = memreuse_ir::Program {
        preamble: program.preamble.clone(),
        decorator: program.decorator.clone(),
        name: program.name.clone(),
        functions,
        dynamic_dims: program.dynamic_dims.clone(),
        spacing: program.spacing,
        span: program.span,
    };
    Ok((planned, reports))
}
