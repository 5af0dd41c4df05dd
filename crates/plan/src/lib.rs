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
pub mod layout;
mod occupancy;
pub mod offsets;
pub mod pack;
pub mod pipeline;
pub mod report;
pub mod retarget;
pub mod seats;
pub mod stages;
mod timeline;

use std::sync::Arc;

use memreuse_ir::Function;

pub use analysis::lifetimes::{LiveStep, live_bytes_at};
pub use config::{LayoutSearch, PlanConfig, Planner, Rules, SpaceCapacity};
pub use layout::align32;
pub use pipeline::{Completion, OncePlan, PlanOptions, Planning};
pub use report::{
    BufferReport, FunctionPlan, LifetimeReport, MemberRows, MoveReport, PlanError, PlanReport,
    SpaceReport,
};
pub use stages::{
    GroupFit, Packed, PackedBuffer, Prepared, ReportToDo, SharingRules, SpaceFit, SpacePacking,
    is_planned, spaces_of,
};

/// Changes whenever the planner's output can change for the same input: a digest of what the
/// planner makes of every fixture and bundled kernel, pinned by `tests/planner_version.rs`
/// (which prints the new value when the output changed). Cache keys include it.
pub const PLANNER_VERSION: &str = "48f2892bd58e2fe7";

/// Plans one function as `config.planner` says (PyPTO's MemoryReuse by default), with what
/// `options` asks beyond the configuration.
pub fn plan_function(
    input: &Function,
    config: &PlanConfig,
    options: &PlanOptions<'_>,
) -> Result<FunctionPlan, PlanError> {
    match config.planner {
        Planner::Pypto => Planning::once(Arc::new(input.clone()), config).plan(options),
        Planner::Dsa => offsets::plan_function(input, config, options),
        Planner::None => Ok(FunctionPlan {
            function: input.clone(),
            report: PlanReport::default(),
        }),
    }
}

/// Plans every function of a program; the first planning error stops it, naming the function.
pub fn plan_program(
    program: &memreuse_ir::Program,
    config: &PlanConfig,
) -> Result<(memreuse_ir::Program, Vec<PlanReport>), (usize, PlanError)> {
    let mut functions = Vec::with_capacity(program.functions.len());
    let mut reports = Vec::with_capacity(program.functions.len());
    for (index, function) in program.functions.iter().enumerate() {
        let plan =
            plan_function(function, config, &PlanOptions::default()).map_err(|e| (index, e))?;
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
