//! Target backends and what planning needs to know of them (rules §2): per-space capacities and
//! the target-specific rows of the op table.

use crate::named::MemSpace;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// No backend configured: every capacity is unknown, target-specific rules are off.
    #[default]
    None,
    /// Ascend910B (A2/A3).
    Ascend910B,
    /// Ascend950 (A5).
    Ascend950,
}

impl Backend {
    pub fn from_name(name: &str) -> Option<Backend> {
        Some(match name {
            "none" => Backend::None,
            "910b" => Backend::Ascend910B,
            "950" => Backend::Ascend950,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::None => "none",
            Backend::Ascend910B => "910b",
            Backend::Ascend950 => "950",
        }
    }

    /// Whether `tile.prelu` takes the A5 row of the op table (rules §6.1.4).
    pub fn is_a5(self) -> bool {
        self == Backend::Ascend950
    }

    /// Whether the split-AIV load + tpop hazard guard applies (rules §6.1.3).
    pub fn requires_split_load_tpop_workaround(self) -> bool {
        self == Backend::Ascend910B
    }

    /// Usable bytes of a memory space; `None` where unknown (rules §2.3).
    pub fn capacity(self, space: MemSpace) -> Option<i64> {
        use MemSpace::*;
        let bytes = match (self, space) {
            (Backend::None, _)
            | (_, Ddr | ScalarLocal)
            | (Backend::Ascend910B, LeftScale | RightScale) => return None,
            (Backend::Ascend910B, Vec) => 188_416,
            (Backend::Ascend950, Vec) => 245_760,
            (_, Mat) => 524_288,
            (_, Left | Right) => 65_536,
            (Backend::Ascend910B, Acc) => 131_072,
            (Backend::Ascend950, Acc) => 262_144,
            (Backend::Ascend910B, Bias) => 1_024,
            (Backend::Ascend950, Bias) => 4_096,
            (Backend::Ascend950, LeftScale | RightScale) => 4_096,
        };
        Some(bytes)
    }
}
