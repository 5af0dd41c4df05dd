//! What the planner is asked to do: which decision, for which backend, with which capacities
//! and options.

use memreuse_ir::MemSpace;
use memreuse_ir::backend::Backend;
use memreuse_ir::ops::OpInfo;

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

/// Which revision of MemoryReuse's rules the planner follows (rules §S).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rules {
    /// The newer pass: the upstream snapshot amended by the seed rules S1–S6.
    #[default]
    Seed,
    /// The upstream snapshot `e2d0f78ae` as it was, without the seed rules: what the
    /// conformance corpus was made with.
    Snapshot,
}

impl Rules {
    /// As the command line and memreuse.toml name it.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Seed => "seed",
            Rules::Snapshot => "snapshot",
        }
    }

    /// The rule set named `name` (`seed`, `snapshot`).
    pub fn from_name(name: &str) -> Option<Rules> {
        [Rules::Seed, Rules::Snapshot]
            .into_iter()
            .find(|rules| rules.name() == name)
    }

    /// Whether the seed's rule `S2`/`S1`… applies: always under the seed's rules, never
    /// under the snapshot's.
    pub fn seed(self) -> bool {
        self == Rules::Seed
    }

    /// Whether `op`'s output may alias no variable argument: the snapshot lists `tile.rem`
    /// and `tile.rems` as in-place safe (seed rule S5 made them not).
    pub fn not_inplace_safe(self, op: &OpInfo) -> bool {
        op.not_inplace_safe && (self.seed() || !op.inplace_safe_in_snapshot)
    }
}

#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
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
    /// The seed's rules or the upstream snapshot's (`--rules`, rules §S).
    pub rules: Rules,
}

/// Written out by hand so that a seed configuration reads as it did before `rules` existed:
/// its cache keys ([`PlanConfig`]'s `Debug` is hashed into them) and the planner-version
/// digest stay what they were, and only the snapshot's rules show.
impl std::fmt::Debug for PlanConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = f.debug_struct("PlanConfig");
        out.field("backend", &self.backend)
            .field("planner", &self.planner)
            .field("materialize_aliases", &self.materialize_aliases)
            .field("capacity_overrides", &self.capacity_overrides)
            .field("assign_addresses", &self.assign_addresses)
            .field("exact", &self.exact);
        if self.rules != Rules::Seed {
            out.field("rules", &self.rules);
        }
        out.finish()
    }
}

impl PlanConfig {
    /// Usable bytes of a space; `None` where unknown (no backend capacity and no override;
    /// an override of 0 means unknown too).
    pub fn capacity(&self, space: MemSpace) -> Option<i64> {
        let bytes = self.capacity_overrides[space as usize];
        bytes
            .or_else(|| self.backend.capacity(space))
            .filter(|&b| b != 0)
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

/// How hard the offset planner looks for a small layout of each space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutSearch {
    /// The solver's greedy portfolio, then its search within its node budget (`offsets`).
    Full,
    /// The greedy portfolio alone. The search only lowers the peak, so a safe-planning trial,
    /// which asks whether an edit keeps two tiles apart, does without it; it costs up to half
    /// a second for a space of 200 groups, and a repair can take dozens of trials.
    Greedy,
}

/// One space's capacity as packing sees it: the usable bytes (reported), and the bytes the
/// capacity-driven steps plan against (`None` unless they run); `None` where unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpaceCapacity {
    pub usable: Option<i64>,
    pub planning: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache keys hash `PlanConfig`'s `Debug`: the snapshot's rules must show in it, and a
    /// seed configuration must read as it did before `rules` existed.
    #[test]
    fn only_the_snapshot_rules_show_in_the_cache_key_text() {
        let seed = format!("{:?}", PlanConfig::default());
        let snapshot = format!(
            "{:?}",
            PlanConfig {
                rules: Rules::Snapshot,
                ..PlanConfig::default()
            }
        );
        assert!(!seed.contains("rules"), "{seed}");
        assert_ne!(seed, snapshot);
        assert!(snapshot.contains("Snapshot"), "{snapshot}");
        assert_eq!(Rules::from_name("snapshot"), Some(Rules::Snapshot));
        assert_eq!(Rules::from_name(Rules::Seed.name()), Some(Rules::Seed));
    }
}
