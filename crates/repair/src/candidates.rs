//! The edits that can separate a pair of tiles (`candidates`), in the order a round tries
//! them, with what their warnings say, and the edits of the input made (`apply`).

use std::cell::OnceCell;

use rustc_hash::FxHashSet;

use crate::ir::walk::final_yield_values;
use crate::ir::{FreshBases, Function, Stmt, StmtKind, Type, VarId};
use crate::isolate::{Place, StorageRoots, detach, fresh_buffer, place_anchor};
use crate::message::{Made, Placed, PlacedBy, RepairText, UserNames, Who};
use crate::plan::seats::Seats;
use crate::verify::Clobber;

/// One way to separate two tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Action {
    /// The sharing group of this tile keeps its own allocation.
    KeepOwn(VarId),
    /// The loop carry or `if` result leaves its init's buffer.
    Detach(Place),
    /// This tile (and its views) moves to a fresh allocation: the input put it on a buffer
    /// it must not use (an upstream Step 0 retarget).
    Fresh(VarId),
}

/// Applies an edit of the input (`Detach` or `Fresh`); what it made, for its warning, or
/// `None` when it does not apply. A new allocation is named from `bases`, those of `input`.
pub(crate) fn apply(
    action: Action,
    input: &mut Function,
    own: &mut FxHashSet<VarId>,
    bases: &mut FreshBases,
) -> Option<Made> {
    match action {
        // Not an edit of the input: the caller tells the packer to keep the group apart.
        Action::KeepOwn(_) => Some(Made::default()),
        Action::Detach(place) => {
            let detached = detach(input, place, bases)?;
            // The new allocation is the place's alone: the packer, whose lifetimes called the
            // shared buffer safe, must not put it back beside the value it protects.
            own.insert(detached.copy_var);
            Some(Made {
                copy: Some(detached.copy),
                new_base: Some(detached.new_base),
            })
        }
        Action::Fresh(tile) => {
            let fresh = fresh_buffer(input, tile, bases)?;
            own.insert(tile);
            Some(Made {
                copy: None,
                new_base: Some(fresh),
            })
        }
    }
}

/// A round's input and plan, with what the candidates of its pairs and their warnings read
/// from them, found once for all its pairs: where carries and `if` results sit in each, the
/// storage roots and places of each, and how the plan's tiles are named.
pub(crate) struct Sites<'a> {
    pub(crate) input: &'a Function,
    pub(crate) planned: &'a Function,
    input_seats: Seats,
    planned_seats: Seats,
    pub(crate) planned_roots: StorageRoots,
    /// The input's storage roots, found when first asked.
    input_roots: OnceCell<StorageRoots>,
    /// How many of the plan's variables are the user's, and how the warnings name its tiles
    /// (an inserted copy by the user's tile it copies), found when first asked.
    pub(crate) user_vars: usize,
    pub(crate) user_names: OnceCell<UserNames>,
    /// PyPTO's own plan, which the warnings say PyPTO made.
    pub(crate) pypto: &'a PyptoPlan,
    /// Where carries and `if` results sit in PyPTO's kept plan, found when first asked.
    pypto_seats: OnceCell<Seats>,
}

impl<'a> Sites<'a> {
    pub(crate) fn of(
        input: &'a Function,
        planned: &'a Function,
        pypto: &'a PyptoPlan,
        user_vars: usize,
    ) -> Sites<'a> {
        Sites {
            input,
            planned,
            input_seats: Seats::of(&input.body),
            planned_seats: Seats::of(&planned.body),
            planned_roots: StorageRoots::of(planned),
            input_roots: OnceCell::new(),
            user_vars,
            user_names: OnceCell::new(),
            pypto,
            pypto_seats: OnceCell::new(),
        }
    }

    /// The storage roots and places of the round's input.
    fn input_roots(&self) -> &StorageRoots {
        self.input_roots
            .get_or_init(|| StorageRoots::of(self.input))
    }

    /// How the warnings name the plan's tiles.
    pub(crate) fn user_names(&self) -> &UserNames {
        self.user_names
            .get_or_init(|| UserNames::of(self.user_vars, self.planned))
    }

    /// Who put `tile` of the round's plan on `base`: PyPTO, where its own plan has the tile
    /// of that name there too.
    fn placed_by(&self, tile: VarId, base: &str) -> PlacedBy {
        let pypto = match self.pypto {
            PyptoPlan::Round => return PlacedBy::Pypto,
            PyptoPlan::Refused => return PlacedBy::EarlierRepairs,
            PyptoPlan::Kept(pypto) => pypto,
        };
        let seats = self.pypto_seats.get_or_init(|| Seats::of(&pypto.body));
        let name = &self.planned.vars[tile].name;
        // A user's tile has its id in every plan; an inserted one is found by its name.
        let in_pypto = if pypto.vars.get(tile).is_some_and(|v| v.name == *name) {
            Some(tile)
        } else {
            let named = pypto.vars.iter().filter(|(_, v)| v.name == *name);
            named.map(|(id, _)| id).last()
        };
        let pypto_base =
            in_pypto.and_then(|v| crate::base(pypto, seats.with_memref(&pypto.vars, v)?));
        if pypto_base.as_deref() == Some(base) {
            PlacedBy::Pypto
        } else {
            PlacedBy::EarlierRepairs
        }
    }
}

/// PyPTO's own plan of the function, which a repair's warning says PyPTO made.
pub(crate) enum PyptoPlan {
    /// The round's plan: no trial has replaced it yet.
    Round,
    /// Kept once a trial replaced it.
    Kept(Box<Function>),
    /// None: PyPTO refused the function (its yield fixup would write one carry over another,
    /// rules §S2), so the first plan is already a repair's.
    Refused,
}

/// The ways to separate the pair, best first: a tile the packer moved onto the other's buffer
/// goes back to its own (the writer first); else a loop carry or `if` result that sits on the
/// victim's buffer gets one of its own — the one whose storage the writer is (an in-place
/// result or view of an `if` result, a carry or a loop result) or one enclosing the write,
/// one whose init is the victim first, then outer before inner; else the writer, if the input
/// already put it there, moves to a fresh allocation with the tile whose view or in-place
/// result it is (an assignment's value: a carry's or an `if` result's storage moves with its
/// place, above). Each comes with what its warning says, worded once [`apply`] has made the
/// copy and allocation it names.
pub(crate) fn candidates(
    sites: &Sites<'_>,
    own: &FxHashSet<VarId>,
    pair: Clobber,
    offsets: bool,
) -> Vec<(Action, RepairText)> {
    let Clobber { victim, writer } = pair;
    let Sites {
        input,
        planned,
        ref input_seats,
        ref planned_seats,
        ref planned_roots,
        ..
    } = *sites;
    // A carry or `if` result printed without a type sits where its init sits.
    let seat_base = |seats: &Seats, f: &Function, v: VarId| base(f, seats.with_memref(&f.vars, v)?);
    let planned_base = |v: VarId| seat_base(planned_seats, planned, v);
    let input_base = |v: VarId| {
        (v.index() < input.vars.len())
            .then(|| seat_base(input_seats, input, v))
            .flatten()
    };
    let mut out = Vec::new();
    for (tile, other) in [(writer, victim), (victim, writer)] {
        let (Some(now), Some(own_base)) = (planned_base(tile), input_base(tile)) else {
            continue;
        };
        // A carry or `if` result keeps its own buffer through the tile it sits with.
        let grouped = input_seats.defined(tile);
        let kept = if grouped == tile {
            Who::Tile(tile)
        } else {
            Who::SitsWith {
                group: grouped,
                tile,
            }
        };
        // The offset planner keeps every group on its own allocation, at an address that may
        // overlap another's.
        let overlapping = offsets && now == own_base;
        if (now != own_base || overlapping) && !own.contains(&grouped) {
            let placed = if overlapping {
                Placed::Overlapping
            } else {
                let by = sites.placed_by(tile, &now);
                Placed::OnBuffer { now, own_base, by }
            };
            let text = RepairText::KeepsOwn {
                tile,
                other,
                kept,
                placed,
            };
            out.push((Action::KeepOwn(grouped), text));
        }
    }
    let Some(victim_base) = planned_base(victim) else {
        return out;
    };
    let mut places = Vec::new();
    // The carry or `if` result the writer is the storage of (an in-place result of an `if`
    // result, a view of an iter arg): it leaves with the place, never alone.
    if let Some(place) = planned_roots.storage_place(writer)
        && let Some((anchor, init)) = place_anchor(&planned.body, place)
    {
        places.push((0, place, anchor, init));
    }
    enclosing_places(&planned.body, writer, 0, &mut Vec::new(), &mut places);
    // A place whose init is the victim itself first, then outermost first.
    let mut places: Vec<_> = places
        .into_iter()
        .filter(|&(_, _, anchor, init)| {
            // An untyped return var sits where its init sits.
            planned_base(anchor)
                .or_else(|| planned_base(init))
                .as_deref()
                == Some(victim_base.as_str())
                && planned_base(init).as_deref() == Some(victim_base.as_str())
                && anchor.index() < input.vars.len()
        })
        .collect();
    places.sort_by_key(|&(depth, _, anchor, init)| (init != victim, depth, anchor.index()));
    // The writer's own place may enclose it too: each place is tried once.
    let mut tried = Vec::new();
    places.retain(|&(_, place, _, _)| {
        let first = !tried.contains(&place);
        tried.push(place);
        first
    });
    for (_, place, anchor, init) in places {
        let text = RepairText::Detaches {
            place,
            anchor,
            init,
            base: victim_base.clone(),
            // A carry or `if` result sits on its init's buffer (rules §3.1).
            by: sites.placed_by(init, &victim_base),
        };
        out.push((Action::Detach(place), text));
    }
    // The packer may have moved both onto a third buffer: what counts is that the input put
    // them on one. A view, alias or in-place result moves with the tile whose storage it is.
    // The input's storage roots walk the whole input: found for a pair the input put on one
    // base, once a round.
    if let Some(writer_base) = input_base(writer)
        && Some(&writer_base) == input_base(victim).as_ref()
        && let input_roots = sites.input_roots()
        && let root = input_roots.root(writer)
        && root != victim
        && input_roots.place(root).is_none()
    {
        let moved = if root == writer {
            Who::Tile(writer)
        } else {
            Who::StorageOf { root, tile: writer }
        };
        let text = RepairText::Fresh {
            writer,
            victim,
            base: writer_base,
            moved,
        };
        out.push((Action::Fresh(root), text));
    }
    out
}

/// The places of every loop and `if` enclosing `v`'s definition, with their depth, the
/// variable on the place and its init.
fn enclosing_places(
    body: &[Stmt],
    v: VarId,
    depth: usize,
    stack: &mut Vec<(usize, Place, VarId, VarId)>,
    out: &mut Vec<(usize, Place, VarId, VarId)>,
) -> bool {
    for stmt in body {
        let found = match &stmt.kind {
            StmtKind::Assign { target, .. } => *target == v,
            StmtKind::For(f) => {
                let before = stack.len();
                for (&arg, init) in f.iter_args.iter().zip(&f.init_values) {
                    if let Some(init) = init.as_var() {
                        stack.push((depth, Place::Carry(arg), arg, init));
                    }
                }
                let inside =
                    f.iter_args.contains(&v) || enclosing_places(&f.body, v, depth + 1, stack, out);
                if inside && out.is_empty() {
                    out.extend(stack.iter().copied());
                }
                stack.truncate(before);
                inside
            }
            StmtKind::If(i) => {
                let before = stack.len();
                if let Some(values) = final_yield_values(&i.then_body) {
                    for (&result, value) in i.return_vars.iter().zip(values) {
                        if let Some(value) = value.as_var() {
                            stack.push((depth, Place::IfResult(result), result, value));
                        }
                    }
                }
                let inside = enclosing_places(&i.then_body, v, depth + 1, stack, out)
                    || i.else_body
                        .as_deref()
                        .is_some_and(|e| enclosing_places(e, v, depth + 1, stack, out));
                if inside && out.is_empty() {
                    out.extend(stack.iter().copied());
                }
                stack.truncate(before);
                inside || i.return_vars.contains(&v)
            }
            StmtKind::With(w) => enclosing_places(&w.body, v, depth, stack, out),
            _ => false,
        };
        if found {
            return true;
        }
    }
    false
}

/// The names of a clobber's two tiles.
pub(crate) fn pair_names(f: &Function, pair: Clobber) -> (&str, &str) {
    (
        f.vars[pair.victim].name.as_str(),
        f.vars[pair.writer].name.as_str(),
    )
}

pub(crate) fn base(f: &Function, v: VarId) -> Option<String> {
    match &f.vars.get(v)?.ty {
        Some(Type::Tile(t)) => t.memref.as_ref().map(|m| m.base.to_string()),
        _ => None,
    }
}
