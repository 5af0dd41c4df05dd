//! Damage tests of the value checker (`V007`): correct plans of generated programs are damaged
//! the two ways a planner goes wrong, and the checker must *find* the damage, naming the value
//! lost and what destroyed it:
//!
//! * a tile moved onto the buffer of a tile that is still read after it (the write clobbers a
//!   live value);
//! * a yield fixup's `tile.move` dropped (the loop carry or `if` result no longer receives its
//!   value), where the carry or result is read at all;
//! * an op's output moved onto an input its op-table row says it must not alias (the op reads
//!   the input while it writes over it).

use memreuse::ir::{
    Expr, ExprKind, Function, Stmt, StmtKind, Type, VarId, parse_program, print_function,
};
use memreuse::plan::{PlanConfig, plan_program};
use memreuse::verify::VerifyOptions;
use memreuse::verify::values::{Cause, MustNotAlias, check};
use memreuse_testgen::synth::{SynthConfig, program_text};

/// Correct plans of generated programs with loops and ifs (Step 0 off, so yield fixups insert
/// moves).
fn plans() -> Vec<Function> {
    let mut out = Vec::new();
    for seed in 0..40 {
        let cfg = SynthConfig {
            functions: 1,
            tiles_per_function: 30,
            max_live: Some(4),
            seed,
            control_flow: true,
        };
        let program = parse_program(&program_text("Synth", &cfg)).expect("generated text parses");
        let (planned, _) = plan_program(&program, &PlanConfig::default()).expect("plans");
        for f in planned.functions {
            assert!(
                check(&f, &VerifyOptions::default()).is_empty(),
                "the undamaged plan is sound"
            );
            out.push(f);
        }
    }
    out
}

/// Whether `stmt` reads `v`'s bytes. A `tile.slice` reads nothing itself (its window is read
/// where the slice is used), so making one is no read of its source.
fn reads(stmt: &Stmt, v: VarId) -> bool {
    let mut found = false;
    let mut visit = |e: &Expr| e.for_each_var(&mut |u| found |= u == v);
    match &stmt.kind {
        StmtKind::Assign { value, .. } if value.call_op() == Some("tile.slice") => {
            if let Some(call) = value.as_call() {
                call.args.iter().skip(1).for_each(visit);
            }
        }
        StmtKind::Assign { value, .. } | StmtKind::Eval(value) => visit(value),
        StmtKind::Yield { values } | StmtKind::Return { values } => values.iter().for_each(visit),
        StmtKind::For(f) => {
            f.bounds.iter().chain(&f.init_values).for_each(visit);
            found |= f.body.iter().any(|s| reads(s, v));
        }
        StmtKind::If(i) => {
            visit(&i.cond);
            found |= i.then_body.iter().any(|s| reads(s, v));
            found |= i.else_body.iter().flatten().any(|s| reads(s, v));
        }
        StmtKind::With(w) => found |= w.body.iter().any(|s| reads(s, v)),
        StmtKind::Pass => {}
    }
    found
}

fn on_chip(f: &Function, v: VarId) -> bool {
    matches!(&f.vars[v].ty, Some(Type::Tile(t)) if t.memref.is_some() && t.space.is_some_and(|s| s.name() != "DDR"))
}

/// An op output (not a view, not an in-place result) defined at top level.
fn plain_write(stmt: &Stmt) -> Option<VarId> {
    let StmtKind::Assign { target, value } = &stmt.kind else {
        return None;
    };
    let op = value.call_op()?;
    let view_or_in_place = [
        "tile.reshape",
        "tile.slice",
        "tile.reinterpret_view",
        "tile.set_validshape",
        "tile.transpose_view",
        "tile.assemble",
        "tile.matmul_acc",
        "tile.fillpad_inplace",
        "tile.alloc",
    ];
    (!view_or_in_place.contains(&op)).then_some(*target)
}

#[test]
fn a_tile_moved_onto_a_live_buffer_is_detected() {
    let mut damaged = 0;
    for f in plans() {
        // Victim `v` defined at top-level statement i, writer `w` at j > i, `v` read at k > j.
        let body = &f.body;
        let candidate = (0..body.len()).find_map(|i| {
            let v = plain_write(&body[i]).filter(|&v| on_chip(&f, v))?;
            (i + 1..body.len()).find_map(|j| {
                let w = plain_write(&body[j]).filter(|&w| on_chip(&f, w) && w != v)?;
                let live_after = body[j + 1..].iter().any(|s| reads(s, v));
                (live_after && !reads(&body[j], v)).then_some((v, w))
            })
        });
        let Some((victim, writer)) = candidate else {
            continue;
        };
        let mut broken = f.clone();
        let memref = broken.vars[victim]
            .ty
            .as_ref()
            .and_then(Type::memref)
            .cloned();
        if let Some(Type::Tile(tile)) = &mut broken.vars[writer].ty {
            tile.memref = memref;
        }
        let violations = check(&broken, &VerifyOptions::default());
        let mut text = String::new();
        print_function(&broken, &mut text, 4);
        assert!(
            violations.iter().any(|v| matches!(
                v.cause,
                Some(Cause::Overwritten { writer: w, .. }) if w == writer
            )),
            "moving '{}' onto '{}' goes unnoticed: {violations:?}\n{text}",
            broken.vars[writer].name,
            broken.vars[victim].name,
        );
        damaged += 1;
    }
    eprintln!("{damaged} plans damaged by a moved tile");
    assert!(damaged >= 30, "only {damaged} plans damaged");
}

/// A statement `output = op(...)` at any depth whose op must not write over one of its on-chip
/// arguments (as the op table says), with that argument.
fn forbidden_input(f: &Function, body: &[Stmt], out: &mut Vec<(VarId, VarId)>) {
    for stmt in body {
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                let (Some(info), Some(call)) = (value.call_info(), value.as_call()) else {
                    continue;
                };
                let forbidden: Vec<usize> = if info.not_inplace_safe {
                    (0..call.args.len()).collect()
                } else {
                    info.forbid.to_vec()
                };
                let input = forbidden
                    .into_iter()
                    .filter(|&k| info.reuses_input != Some(k))
                    .filter_map(|k| call.args.get(k).and_then(Expr::as_var))
                    .find(|&v| on_chip(f, v) && on_chip(f, *target));
                out.extend(input.map(|v| (*target, v)));
            }
            StmtKind::For(l) => forbidden_input(f, &l.body, out),
            StmtKind::If(i) => {
                forbidden_input(f, &i.then_body, out);
                forbidden_input(f, i.else_body.as_deref().unwrap_or_default(), out);
            }
            StmtKind::With(w) => forbidden_input(f, &w.body, out),
            _ => {}
        }
    }
}

#[test]
fn an_output_on_an_input_it_must_not_alias_is_detected() {
    let mut damaged = 0;
    for f in plans() {
        let mut ops = Vec::new();
        forbidden_input(&f, &f.body, &mut ops);
        for (output, input) in ops {
            let mut broken = f.clone();
            let memref = broken.vars[input]
                .ty
                .as_ref()
                .and_then(Type::memref)
                .cloned();
            let space = broken.vars[input].ty.as_ref().and_then(Type::as_tile);
            let space = space.and_then(|t| t.space);
            if let Some(Type::Tile(tile)) = &mut broken.vars[output].ty {
                tile.memref = memref;
                tile.space = space;
            }
            let violations = check(&broken, &VerifyOptions::default());
            let mut text = String::new();
            print_function(&broken, &mut text, 4);
            assert!(
                violations.iter().any(|v| v.lost == input
                    && matches!(
                        v.cause,
                        Some(Cause::ReadWhileWritten { writer, why: MustNotAlias::NotInPlaceSafe { .. } | MustNotAlias::ForbiddenArgument { .. }, .. }) if writer == output
                    )),
                "'{}' written over its operand '{}' goes unnoticed: {violations:?}\n{text}",
                broken.vars[output].name,
                broken.vars[input].name,
            );
            damaged += 1;
        }
    }
    eprintln!("{damaged} plans damaged by an output on its forbidden input");
    assert!(
        damaged >= 20,
        "only {damaged} outputs moved onto their forbidden input"
    );
}

/// Drops the `n`-th yield-fixup move (`x_mv = tile.move(x)` yielded by the list it ends) and
/// yields `x` instead; returns the carry or result the move fed.
fn drop_fixup_move(body: &mut [Stmt], n: &mut usize) -> Option<VarId> {
    for stmt in body.iter_mut() {
        let found = match &mut stmt.kind {
            StmtKind::For(f) => drop_in_list(&mut f.body, &f.iter_args, n)
                .or_else(|| drop_fixup_move(&mut f.body, n)),
            StmtKind::If(i) => {
                let results = i.return_vars.clone();
                drop_in_list(&mut i.then_body, &results, n)
                    .or_else(|| drop_in_list(i.else_body.as_mut()?, &results, n))
                    .or_else(|| drop_fixup_move(&mut i.then_body, n))
                    .or_else(|| drop_fixup_move(i.else_body.as_mut()?, n))
            }
            StmtKind::With(w) => drop_fixup_move(&mut w.body, n),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// `carries[k]` receives the yield's k-th value (the iter arg of a loop, the result of an `if`);
/// returns the carry whose move was dropped.
fn drop_in_list(list: &mut Vec<Stmt>, carries: &[VarId], n: &mut usize) -> Option<VarId> {
    let Some(StmtKind::Yield { values }) = list.last().map(|s| &s.kind) else {
        return None;
    };
    let values = values.clone();
    for (k, value) in values.iter().enumerate() {
        let Some(moved) = value.as_var() else {
            continue;
        };
        let Some(at) = list.iter().position(|s| {
            matches!(&s.kind, StmtKind::Assign { target, value } if *target == moved && value.call_op() == Some("tile.move"))
        }) else {
            continue;
        };
        let StmtKind::Assign { value: mv, .. } = &list[at].kind else {
            continue;
        };
        let Some(source) = mv
            .as_call()
            .and_then(|c| c.args.first())
            .and_then(Expr::as_var)
        else {
            continue;
        };
        if *n > 0 {
            *n -= 1;
            continue;
        }
        list.remove(at);
        if let Some(Stmt {
            kind: StmtKind::Yield { values },
            ..
        }) = list.last_mut()
        {
            values[k] = Expr::new(ExprKind::Var(source), values[k].span);
        }
        return carries.get(k).copied();
    }
    None
}

#[test]
fn a_dropped_yield_fixup_move_is_detected() {
    let mut damaged = 0;
    for f in plans() {
        for n in 0.. {
            let mut broken = f.clone();
            let mut skip = n;
            let Some(carry) = drop_fixup_move(&mut broken.body, &mut skip) else {
                break;
            };
            // A carry or result nothing reads cannot show the damage.
            let observed =
                broken.body.iter().any(|s| reads(s, carry)) || result_read(&broken, carry);
            if !observed {
                continue;
            }
            let violations = check(&broken, &VerifyOptions::default());
            let mut text = String::new();
            print_function(&broken, &mut text, 4);
            assert!(
                !violations.is_empty(),
                "dropping the move into '{}' goes unnoticed\n{text}",
                broken.vars[carry].name
            );
            damaged += 1;
        }
    }
    eprintln!("{damaged} plans damaged by a dropped fixup move");
    assert!(damaged >= 50, "only {damaged} fixup moves dropped");
}

/// Whether the return var of the loop whose iter arg is `iter_arg` is read.
fn result_read(f: &Function, iter_arg: VarId) -> bool {
    fn find(body: &[Stmt], iter_arg: VarId) -> Option<VarId> {
        body.iter().find_map(|s| match &s.kind {
            StmtKind::For(f) => f
                .iter_args
                .iter()
                .position(|&a| a == iter_arg)
                .and_then(|k| f.return_vars.get(k).copied())
                .or_else(|| find(&f.body, iter_arg)),
            StmtKind::If(i) => find(&i.then_body, iter_arg)
                .or_else(|| i.else_body.as_deref().and_then(|b| find(b, iter_arg))),
            StmtKind::With(w) => find(&w.body, iter_arg),
            _ => None,
        })
    }
    find(&f.body, iter_arg).is_some_and(|r| f.body.iter().any(|s| reads(s, r)))
}
