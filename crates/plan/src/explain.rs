//! Why two tiles do or do not share a buffer: their lifetimes, the first `can_share` gate
//! between their groups, and where the plan actually put them.

use std::borrow::Cow;
use std::fmt::Write as _;

use std::sync::Arc;

use crate::analysis::lifetimes::Lifetimes;
use crate::config::PlanConfig;
use crate::pack::{Blocker, PipelineGate, pair_blocker};
use crate::pipeline::{StageResults, missing};
use crate::report::PlanError;
use crate::{PlanOptions, Planning, plan_function};
use memreuse_ir::{Function, LineIndex, Type, VarId, VarTable};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    #[error("no tile named '{0}' in function '{1}'")]
    UnknownTile(String, String),
    #[error(
        "'{0}' is not a planned tile (it has no on-chip MemRef or is not assigned in the body)"
    )]
    NotPlanned(String),
    #[error(transparent)]
    Plan(#[from] PlanError),
}

/// A readable account, one fact per line; places are lines of `text`, the file `f` was
/// parsed from.
pub fn explain(
    f: &Function,
    text: &str,
    config: &PlanConfig,
    a: &str,
    b: &str,
) -> Result<String, ExplainError> {
    let planning = Planning::kept(Arc::new(f.clone()), config);
    let stages = Stages {
        function: f,
        results: &planning,
        planned: &|| {
            plan_function(f, config, &PlanOptions::default()).map(|plan| Cow::Owned(plan.function))
        },
    };
    explain_stages(&stages, text, a, b)
}

/// What an explanation reads of the planning stages, from wherever they were made (a
/// database reads its memoized ones): the function as parsed, its stages (after Step 0, its
/// lifetimes, and on demand its sharing rules and a space's planning capacity) and PyPTO's
/// plan.
pub struct Stages<'a, S: ?Sized> {
    pub function: &'a Function,
    pub results: &'a S,
    pub planned: &'a dyn Fn() -> Result<Cow<'a, Function>, PlanError>,
}

/// [`explain`] over stages already made.
pub fn explain_stages<S: StageResults + ?Sized>(
    stages: &Stages<'_, S>,
    text: &str,
    a: &str,
    b: &str,
) -> Result<String, ExplainError> {
    let Stages {
        function: f,
        results,
        ..
    } = *stages;
    let prepared = results.prepared_function().ok_or_else(missing)?;
    let lifetimes = results.lifetimes().ok_or_else(missing)?;
    let find = |name: &str| -> Result<VarId, ExplainError> {
        prepared
            .vars
            .iter()
            .filter(|(_, v)| v.name == name)
            .map(|(id, _)| id)
            .last()
            .ok_or_else(|| ExplainError::UnknownTile(name.into(), f.name.to_string()))
    };
    let (va, vb) = (find(a)?, find(b)?);
    let group = |v: VarId, name: &str| {
        lifetimes
            .group_of(v)
            .ok_or_else(|| ExplainError::NotPlanned(name.into()))
    };
    let (ga, gb) = (group(va, a)?, group(vb, b)?);
    let index = LineIndex::new(text);
    // The source line of statement `n` (the last statement's for the end of the body).
    let line = |n: u32| {
        let spans = &lifetimes.statement_spans;
        spans
            .get(n as usize)
            .or(spans.last())
            .map_or(0, |span| index.line(span.start))
    };
    let mut out = String::new();
    let mut separable = false;
    for (name, v, g) in [(a, va, ga), (b, vb, gb)] {
        let iv = &lifetimes.intervals[g];
        let (def, last) = lifetimes.liveness(v).unwrap_or((iv.def, iv.last));
        let _ = writeln!(
            out,
            "{name}: defined at line {}, last used at line {}, {} bytes in {}; its group on '{}' (representative '{}') is live from line {} to line {}",
            line(def),
            line(last),
            iv.size,
            iv.space.name(),
            iv.base,
            prepared.vars[iv.rep].name,
            line(iv.def),
            line(iv.last)
        );
    }
    let (ia, ib) = (&lifetimes.intervals[ga], &lifetimes.intervals[gb]);
    if ga == gb {
        let _ = writeln!(
            out,
            "they are one sharing group already (views, in-place results or aliases of one tile)"
        );
    } else if ia.space != ib.space {
        let _ = writeln!(
            out,
            "they never share: different memory spaces ({} and {})",
            ia.space.name(),
            ib.space.name()
        );
    } else {
        let rules = results.sharing_rules().ok_or_else(missing)??;
        let facts = rules.sharing.facts(lifetimes);
        let in_space: Vec<_> = lifetimes
            .intervals
            .iter()
            .filter(|iv| iv.space == ia.space)
            .collect();
        let capacity = results.planning_capacity(ia.space);
        let gate = PipelineGate::new(ia.space, &in_space, capacity);
        let blocker = pair_blocker(&facts, &gate, ga, gb);
        separable = blocker.is_none();
        let _ = writeln!(out, "{}", verdict(blocker, lifetimes, &prepared.vars));
    }
    let planned = (stages.planned)()?;
    let base = |name: &str| {
        planned
            .vars
            .iter()
            .filter(|(_, v)| v.name == name)
            .last()
            .and_then(|(_, v)| match &v.ty {
                Some(Type::Tile(t)) => t.memref.as_ref().map(|m| m.base.to_string()),
                _ => None,
            })
    };
    match (base(a), base(b)) {
        (Some(x), Some(y)) if x == y => {
            let _ = writeln!(out, "outcome: both on '{x}'");
        }
        (Some(x), Some(y)) if separable => {
            let _ = writeln!(
                out,
                "outcome: '{a}' on '{x}', '{b}' on '{y}': first-fit-decreasing placed them apart (larger groups are placed first, and another member of one buffer conflicts with the other tile)"
            );
        }
        (Some(x), Some(y)) => {
            let _ = writeln!(out, "outcome: '{a}' on '{x}', '{b}' on '{y}'");
        }
        _ => {}
    }
    Ok(out)
}

/// Why the packer may or may not put two groups on one buffer, in words (`blocker` is what
/// keeps them apart).
fn verdict(blocker: Option<Blocker>, lifetimes: &Lifetimes, vars: &VarTable) -> String {
    let name_of = |g: usize| vars[lifetimes.intervals[g].rep].name.to_string();
    match blocker {
        None => "no gate keeps them apart: lifetimes are disjoint (touching is allowed: \
                     inputs are read before outputs are written) and no op, hazard or pipeline \
                     rule forbids it"
            .to_string(),
        Some(Blocker::Pinned(g)) => format!(
            "kept apart: '{}' is a declared (pinned) allocation, never shared",
            lifetimes.intervals[g].base
        ),
        Some(Blocker::Lifetime) => {
            "kept apart by the lifetime gate: their groups are live at the same time".into()
        }
        Some(Blocker::Hazard { writer, load }) => format!(
            "kept apart by the Ascend910B split-AIV hazard: '{}' reads a tpop value at the statement where load-derived '{}' dies",
            name_of(writer),
            name_of(load)
        ),
        Some(Blocker::ForbidAlias { writer, operand }) => format!(
            "kept apart by the no-alias gate: the op defining '{}' must not write over its operand on '{}'",
            name_of(writer),
            lifetimes.intervals[operand].base
        ),
        Some(Blocker::PipelineStage) => {
            "kept apart by the pipeline-stage gate: different stages of one pipeline group".into()
        }
    }
}
