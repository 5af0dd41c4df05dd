//! One victim's writers. PyPTO's lifetimes can end a loop or `if` result too early, and the
//! packer then puts later tiles on its buffer, each a pair that a one-pair round separates by
//! keeping the writer's group on its own allocation (`MR-R001`). Where a round's leading open
//! pairs — at least three, before any value the value checker finds lost — have one victim,
//! are each first found by the liveness checker at the writer's write (`V003`) and are each
//! first separated so, one trial keeps every writer but the last apart and their repairs are
//! made at once (`Repair::keep_writers_off_one_victim`, in `rounds`); the last pair's round follows as
//! usual. That gives what the rounds give, in their order, because keeping a group apart
//! under PyPTO's planner moves that group alone and whole onto its own allocation and changes
//! nothing else:
//!
//! * A pair whose writer is kept apart no longer shares bytes; no other pair is added, and no
//!   value that was kept is lost: the checkers find only fewer pairs and fewer lost values.
//! * The one finding that can move is a lost value's, found at its first failing read, which
//!   can be an earlier read once a writer is gone where a loop repeats reads. So the victim
//!   must be the only value lost on its buffer, no other name may read its datum there (a
//!   view, alias or in-place result of it, a carry or `if` result fed from it, found lost
//!   through it), and each read of it before the last pair's finding must be outside loops.
//! * The victim's writers then stay its open pairs with the same findings as long as it is
//!   still lost, which holds in every round if it holds in the trial (fewer writers lose no
//!   more): the trial must find it lost, and find the last pair first.
//!
//! The trial also checks what the first point rests on: every loop carry's and `if` result's
//! tiles sit together as before (so the fixups after packing make the same copies), and the
//! tiles it moved sit alone. A trial that fails a check is dropped, and that victim's writers
//! go one round each. Debug builds replay the rounds a merged trial stands for and hold each
//! to it (`Repair::assert_rounds_agree`).

use rustc_hash::FxHashMap;

use crate::candidates::{Sites, base};
use crate::ir::codes;
use crate::ir::walk::{final_yield_values, for_each_stmt};
use crate::ir::{Expr, Function, LoopKind, Stmt, StmtKind, VarId};
use crate::verify::Finding;

/// Whether, once any of the victim's writers are kept off its buffer, no value can be found
/// lost at a read before `until` (the last merged pair's finding): the value checker finds
/// a value lost at its first failing read, which moves only where loops repeat reads, and
/// keeping writers apart loses no value that was kept (module doc).
/// So: every value the round's findings say lost on the victim's buffer is the victim, no
/// other name reads the victim's datum there (a view, an alias or in-place result, a carry
/// or `if` result fed from it, which are found lost through it), and every read of the
/// victim before `until` is outside any loop.
pub(crate) fn losses_stay_after(
    planned: &Function,
    sites: &Sites<'_>,
    findings: &[Finding],
    victim: VarId,
    until: u32,
) -> bool {
    let Some(buffer) = base(planned, victim) else {
        return false;
    };
    let others_lost = findings
        .iter()
        .filter(|f| f.code() == codes::VALUE_LOST)
        .any(|f| match f.clobber {
            Some(c) => c.victim != victim && base(planned, c.victim).as_ref() == Some(&buffer),
            None => true,
        });
    let renamed = planned
        .vars
        .iter()
        .any(|(v, _)| v != victim && sites.planned_roots.root(v) == victim);
    !others_lost && !renamed && !read_early_or_renamed(&planned.body, victim, until, false)
}

/// Whether `v` is fed to a loop carry or yielded, or read before `until` inside a loop.
fn read_early_or_renamed(body: &[Stmt], v: VarId, until: u32, in_loop: bool) -> bool {
    let mut found = false;
    let mut reads = |e: &Expr, in_loop: bool| {
        e.for_each_var_use(&mut |u, span| found |= u == v && in_loop && span.start < until);
    };
    for stmt in body {
        match &stmt.kind {
            StmtKind::Assign { value, .. } | StmtKind::Eval(value) => reads(value, in_loop),
            StmtKind::Return { values } => values.iter().for_each(|e| reads(e, in_loop)),
            StmtKind::Yield { values } => {
                if values.iter().any(|e| e.as_var() == Some(v)) {
                    return true;
                }
                values.iter().for_each(|e| reads(e, in_loop));
            }
            StmtKind::For(l) => {
                if l.init_values.iter().any(|e| e.as_var() == Some(v)) {
                    return true;
                }
                // A `while_` loop reads its condition on every iteration.
                let repeated = in_loop || l.kind == LoopKind::While;
                l.bounds.iter().for_each(|e| reads(e, repeated));
                if read_early_or_renamed(&l.body, v, until, true) {
                    return true;
                }
            }
            StmtKind::If(i) => {
                reads(&i.cond, in_loop);
                let arms = std::iter::once(&i.then_body[..]).chain(i.else_body.as_deref());
                for arm in arms {
                    if read_early_or_renamed(arm, v, until, in_loop) {
                        return true;
                    }
                }
            }
            StmtKind::With(w) => {
                reads(&w.context, in_loop);
                if read_early_or_renamed(&w.body, v, until, in_loop) {
                    return true;
                }
            }
            StmtKind::Pass => {}
        }
    }
    found
}

/// Whether the groups `trial` keeps apart moved whole and alone: the tiles it moved to one
/// buffer shared one before and nothing else is on it, and the tiles of every loop carry and
/// `if` result (its init, iter arg, yielded values and result) share a buffer exactly where
/// they do in `planned`. The fixups after packing read only how those sit, so they make the
/// same copies in both plans, and in every plan between that keeps some of those groups apart.
pub(crate) fn moved_whole_and_alone(planned: &Function, trial: &Function) -> bool {
    if planned.vars.len() != trial.vars.len() {
        return false;
    }
    let mut places: Vec<Vec<VarId>> = Vec::new();
    let yielded = |body: &[Stmt], k: usize| {
        final_yield_values(body).and_then(|values| values.get(k)?.as_var())
    };
    for_each_stmt(&planned.body, &mut |stmt| match &stmt.kind {
        StmtKind::For(l) => {
            for (k, &iter_arg) in l.iter_args.iter().enumerate() {
                let mut tiles = vec![iter_arg];
                tiles.extend(l.init_values.get(k).and_then(Expr::as_var));
                tiles.extend(yielded(&l.body, k));
                tiles.extend(l.return_vars.get(k).copied());
                places.push(tiles);
            }
        }
        StmtKind::If(i) => {
            for (k, &result) in i.return_vars.iter().enumerate() {
                let mut tiles = vec![result];
                tiles.extend(yielded(&i.then_body, k));
                tiles.extend(i.else_body.as_deref().and_then(|body| yielded(body, k)));
                places.push(tiles);
            }
        }
        _ => {}
    });
    // A group kept apart sits alone on its buffer: the tiles `trial` moved to one buffer
    // were on one buffer together before, and nothing else is on it.
    let bases: Vec<(Option<String>, Option<String>)> = trial
        .vars
        .iter()
        .map(|(v, _)| (base(planned, v), base(trial, v)))
        .collect();
    let mut moved_to: FxHashMap<&str, Option<&str>> = FxHashMap::default();
    for (before, now) in &bases {
        if let Some(now) = now.as_deref()
            && before.as_deref() != Some(now)
            && moved_to
                .insert(now, before.as_deref())
                .is_some_and(|b| b != before.as_deref())
        {
            return false;
        }
    }
    let alone = bases.iter().all(|(before, now)| match now.as_deref() {
        Some(now) => !moved_to.contains_key(now) || before.as_deref() != Some(now),
        None => true,
    });
    if !alone {
        return false;
    }
    let together = |f: &Function, a: VarId, b: VarId| base(f, a) == base(f, b);
    places.iter().all(|tiles| {
        tiles.iter().enumerate().all(|(i, &a)| {
            tiles[i + 1..]
                .iter()
                .all(|&b| together(planned, a, b) == together(trial, a, b))
        })
    })
}
