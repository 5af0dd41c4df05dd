//! What the planner is asked to do: which decision, for which backend, with which capacities
//! and options.

use memreuse_ir::MemSpace;
use memreuse_ir::backend::Backend;

/// Which decision the planner makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Planner {
    /// PyPTO's MemoryReuse: groups share whole buffers (docs/rules.md).
    #[default]
    Pypto,
    /// Every group keeps its allocation and gets an address from the DSA solver.
    Dsa,
    /// No planning: the function is printed back in canonical form.
    None,
}

impl Planner {
    /// As the command line and the reports name it.
    pub fn name(self) -> &'static str {
        match self {
            Planner::Pypto => "pypto",
            Planner::Dsa => "dsa",
            Planner::None => "none",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PlanConfig {
    pub backend: Backend,
    pub planner: Planner,
    /// Run Step 0 (MaterializeSemanticAliases) first, for dumps taken straight after InitMemRef.
    pub materialize_aliases: bool,
    /// Per-space capacities that replace the backend's (indexed by `MemSpace as usize`).
    pub capacity_overrides: [Option<i64>; MemSpace::ALL.len()],
    /// Rewrite MemRef offsets to addresses, as AllocateMemoryAddr does (InCore/AIC/AIV only).
    pub assign_addresses: bool,
    /// Keep PyPTO's decision where it is unsafe (`--exact`): Step 0 retargets by PyPTO's rule
    /// alone, and the engine reports the checker's findings instead of repairing the plan.
    pub exact: bool,
}

impl PlanConfig {
    /// Usable bytes of a space; `None` where unknown (no backend capacity and no override;
    /// the backend table's and an override's 0 mean unknown too).
    pub fn capacity(&self, space: MemSpace) -> Option<i64> {
        let bytes = self.capacity_overrides[space as usize];
        Some(bytes.unwrap_or_else(|| self.backend.capacity(space))).filter(|&b| b != 0)
    }

    /// The capacity the capacity-driven steps plan against: `None` unless they run.
    pub fn planning_capacity(&self, space: MemSpace) -> Option<i64> {
        self.capacity(space).filter(|_| self.capacity_aware())
    }

    /// What packing one space reads of the configuration.
    pub fn space_capacity(&self, space: MemSpace) -> SpaceCapacity {
        SpaceCapacity {
            usable: self.capacity(space),
            planning: self.planning_capacity(space),
        }
    }

    /// Whether the capacity-driven steps run: a backend is configured (rules §2.3), or a
    /// capacity was given explicitly.
    pub fn capacity_aware(&self) -> bool {
        self.backend != Backend::None || self.capacity_overrides.iter().any(Option::is_some)
    }
}

/// One space's capacity as packing sees it: the usable bytes (reported), and the bytes the
/// capacity-driven steps plan against (`None` unless they run); `None` where unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpaceCapacity {
    pub usable: Option<i64>,
    pub planning: Option<i64>,
}
