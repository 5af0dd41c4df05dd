//! The command line's faces of the engine's choices, shared by the commands that take them.

use clap::ValueEnum;
use memreuse::backend::Backend;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlannerArg {
    /// PyPTO's MemoryReuse decision, reproduced exactly.
    Pypto,
    /// Near-optimal offsets: every group keeps its allocation and gets an address (the IR is
    /// printed addressed); the summary compares with PyPTO's footprint.
    Dsa,
    /// No planning: parse and print back in canonical form.
    None,
}

impl From<PlannerArg> for memreuse::plan::Planner {
    fn from(arg: PlannerArg) -> memreuse::plan::Planner {
        match arg {
            PlannerArg::Pypto => memreuse::plan::Planner::Pypto,
            PlannerArg::Dsa => memreuse::plan::Planner::Dsa,
            PlannerArg::None => memreuse::plan::Planner::None,
        }
    }
}

/// `--rules`: which revision of MemoryReuse's rules the planner follows (rules §S).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesArg {
    /// The newer pass: the upstream snapshot with the seed rules S1–S6.
    Seed,
    /// The upstream snapshot e2d0f78ae without the seed rules (with `--exact`, its output).
    Snapshot,
}

impl From<RulesArg> for memreuse::plan::Rules {
    fn from(arg: RulesArg) -> memreuse::plan::Rules {
        match arg {
            RulesArg::Seed => memreuse::plan::Rules::Seed,
            RulesArg::Snapshot => memreuse::plan::Rules::Snapshot,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// Capacity unknown; target-specific rules off.
    None,
    /// Ascend910B (A2/A3).
    #[value(name = "910b")]
    Ascend910B,
    /// Ascend950 (A5).
    #[value(name = "950")]
    Ascend950,
}

impl From<BackendArg> for Backend {
    fn from(arg: BackendArg) -> Backend {
        match arg {
            BackendArg::None => Backend::None,
            BackendArg::Ascend910B => Backend::Ascend910B,
            BackendArg::Ascend950 => Backend::Ascend950,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
/// `--materialize-aliases`: on, off, or on for `*_after_InitMemRef*` dumps only.
pub enum Toggle {
    Auto,
    On,
    Off,
}

impl Toggle {
    pub fn applies_to(self, path: &std::path::Path) -> bool {
        match self {
            Toggle::On => true,
            Toggle::Off => false,
            Toggle::Auto => memreuse_project::is_init_mem_ref_dump(path),
        }
    }
}
