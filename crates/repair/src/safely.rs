//! What a safe plan is made with, and how making it fails.

use crate::diagnostics::Diagnostic;
use crate::plan::{Completion, PlanConfig, PlanError};
use crate::verify::{Addressing, VerifyOptions};

/// Why no safe plan came out.
#[derive(Debug)]
pub enum SafePlanError {
    /// PyPTO's pass itself fails (its ValueError or internal error).
    Plan(PlanError),
    /// The checker's findings on the last plan tried, which no repair removed.
    Unrepaired(Vec<Diagnostic>),
}

/// How a function is made safe: with which configuration, checked with which options, and
/// what of the emitted plan's report is made (all of it, or the diagnostics for a caller
/// that reads only those).
#[derive(Clone, Copy)]
pub(crate) struct Safely<'a> {
    pub(crate) config: &'a PlanConfig,
    pub(crate) options: &'a VerifyOptions,
    pub(crate) report: Completion,
}

impl<'a> Safely<'a> {
    /// The emitted plan's report made whole.
    pub(crate) fn whole(config: &'a PlanConfig, options: &'a VerifyOptions) -> Safely<'a> {
        Safely {
            config,
            options,
            report: Completion::Whole,
        }
    }
}

/// Repairs are rare and each separates one pair of tiles; a plan needing more is reported.
pub(crate) const MAX_ROUNDS: usize = 64;

/// What the checkers are told of a plan made with `config`: its backend, and whether its
/// MemRefs hold addresses (`--addresses`, or the offset planner's, which addresses every
/// function).
pub fn verify_options(config: &PlanConfig) -> VerifyOptions {
    let addressing = if config.planner == crate::plan::Planner::Dsa {
        Addressing::EveryFunction
    } else if config.assign_addresses {
        Addressing::AllocateMemoryAddr
    } else {
        Addressing::Offsets
    };
    VerifyOptions {
        backend: config.backend,
        addressing,
    }
}
