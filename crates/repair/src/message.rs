//! How a repair's warning is worded. A candidate edit holds what its warning says as data
//! ([`RepairText`]: the tiles by variable, the buffers by name); the text is made once the
//! edit has named the copy and allocation it makes, and a copy the planner inserted is said
//! to be one ([`UserNames`]) where the text first names it. The checkers' findings it quotes
//! keep their tiles as variables too (`verify::Worded`), so they are said the same way.

use crate::diagnostics::{Diagnostic, Related};
use crate::ir::codes;
use crate::ir::{Function, Name, VarId};
use crate::isolate::Place;
use crate::verify::{Finding, Text, Worded};

/// What a repair's warning says, before it is worded.
pub(crate) enum RepairText {
    /// `tile` was placed on bytes of `other`; `kept` keeps its own.
    KeepsOwn {
        tile: VarId,
        other: VarId,
        kept: Who,
        placed: Placed,
    },
    /// The loop carry or `if` result `anchor` sits on `base`, the buffer of its `init` (as `by`
    /// placed it); the repaired plan feeds it from a copy of the init in an allocation of its
    /// own.
    Detaches {
        place: Place,
        anchor: VarId,
        init: VarId,
        base: String,
        by: PlacedBy,
    },
    /// The input put `writer` on `base`, the buffer of `victim`; `moved` gets an allocation
    /// of its own.
    Fresh {
        writer: VarId,
        victim: VarId,
        base: String,
        moved: Who,
    },
}

/// How a plan placed a tile on another's bytes.
pub(crate) enum Placed {
    /// The offset planner overlapped their allocations; the repaired plan keeps the tile
    /// clear of every other allocation.
    Overlapping,
    /// The tile is on `now`, the other's buffer (as `by` placed it); the repaired plan keeps it
    /// on its own allocation `own_base`.
    OnBuffer {
        now: String,
        own_base: String,
        by: PlacedBy,
    },
}

/// Who put a tile where a warning says it is: PyPTO's plan, or the repairs made before the
/// warning's (an allocation one of them made, or a packing they changed), whose doing a warning
/// must not lay at PyPTO's door.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum PlacedBy {
    Pypto,
    EarlierRepairs,
}

/// How a warning opens a placement the earlier repairs made ([`PlacedBy::EarlierRepairs`]).
pub(crate) const AFTER_EARLIER_REPAIRS: &str = "once the repairs before this one are made";

/// A tile a repair moves, named with the tile the finding is about when that is another.
pub(crate) enum Who {
    Tile(VarId),
    /// `group`, which `tile` sits with (a carry or `if` result, through its init).
    SitsWith {
        group: VarId,
        tile: VarId,
    },
    /// `root`, whose storage `tile` is (a view, alias or in-place result).
    StorageOf {
        root: VarId,
        tile: VarId,
    },
}

/// What an edit of the input made, for its warning to name.
#[derive(Default)]
pub(crate) struct Made {
    /// The copy that now feeds a detached place.
    pub copy: Option<Name>,
    /// The new allocation.
    pub new_base: Option<Name>,
}

impl RepairText {
    pub fn code(&self) -> &'static str {
        match self {
            RepairText::KeepsOwn { .. } => codes::TILE_KEEPS_OWN_BUFFER,
            RepairText::Detaches {
                place: Place::Carry(_),
                ..
            } => codes::CARRY_GETS_OWN_BUFFER,
            RepairText::Detaches {
                place: Place::IfResult(_),
                ..
            } => codes::IF_RESULT_GETS_OWN_BUFFER,
            RepairText::Fresh { .. } => codes::TILE_GETS_FRESH_BUFFER,
        }
    }

    /// The repair's warning, located where `finding` is, with the finding's places (where the
    /// lost value is defined, written over and read) as notes. Tiles are named as `planned`
    /// (the plan the finding is about) names them.
    pub fn warning(
        &self,
        made: &Made,
        finding: &Finding,
        planned: &Function,
        names: &UserNames,
    ) -> Diagnostic {
        let worded = &finding.worded;
        let message = self.message(made, &worded.message, planned, names);
        let mut d = Diagnostic::warning(self.code(), message, worded.span);
        d.hint = worded.hint.as_ref().map(|hint| names.say(planned, hint));
        d.related = worded
            .related
            .iter()
            .map(|related| Related {
                span: related.span,
                message: names.say(planned, &related.message),
            })
            .collect();
        d
    }

    /// The message; `why` is the finding's. Each part is named in the order the text reads,
    /// so that a copy is said to be one where the text first names it.
    fn message(&self, made: &Made, why: &Text, planned: &Function, names: &UserNames) -> String {
        let mut n = names.naming(planned);
        let (copy, new_base) = (
            made.copy.as_deref().unwrap_or_default(),
            made.new_base.as_deref().unwrap_or_default(),
        );
        match self {
            RepairText::KeepsOwn {
                tile,
                other,
                kept,
                placed,
            } => {
                let (tile, other, why) = (n.tile(*tile), n.tile(*other), n.text(why));
                let kept = n.who(kept);
                match placed {
                    Placed::Overlapping => format!(
                        "the offset planner places {tile} over bytes of {other}, which is unsafe: {why}; the repaired plan keeps {kept} clear of every other allocation"
                    ),
                    Placed::OnBuffer {
                        now,
                        own_base,
                        by: PlacedBy::Pypto,
                    } => format!(
                        "PyPTO puts {tile} on '{now}', the buffer of {other}, which is unsafe: {why}; the repaired plan keeps {kept} on its own allocation '{own_base}'"
                    ),
                    Placed::OnBuffer {
                        now,
                        own_base,
                        by: PlacedBy::EarlierRepairs,
                    } => format!(
                        "{AFTER_EARLIER_REPAIRS}, the packer puts {tile} on '{now}', the buffer of {other}, which is unsafe: {why}; the repaired plan keeps {kept} on its own allocation '{own_base}'"
                    ),
                }
            }
            RepairText::Detaches {
                place,
                anchor,
                init,
                base,
                by,
            } => {
                let (what, init_role) = match place {
                    Place::Carry(_) => ("loop carry", "its init value"),
                    Place::IfResult(_) => ("if result", "the value its then arm yields"),
                };
                let (anchor, first_init, why) = (n.tile(*anchor), n.tile(*init), n.text(why));
                let init = n.tile(*init);
                let keeps = match by {
                    PlacedBy::Pypto => format!("PyPTO keeps {what} {anchor} on '{base}'"),
                    PlacedBy::EarlierRepairs => {
                        format!("{AFTER_EARLIER_REPAIRS}, {what} {anchor} sits on '{base}'")
                    }
                };
                format!(
                    "{keeps}, the buffer of {init_role} {first_init}, which is unsafe: {why}; the repaired plan feeds it from '{copy}', a copy of {init} in its own allocation '{new_base}'"
                )
            }
            RepairText::Fresh {
                writer,
                victim,
                base,
                moved,
            } => {
                let (writer, victim, why) = (n.tile(*writer), n.tile(*victim), n.text(why));
                let moved = n.who(moved);
                format!(
                    "the input puts {writer} on '{base}', the buffer of {victim} (an upstream Step 0 retarget), which is unsafe: {why}; the repaired plan gives {moved} its own allocation '{new_base}'"
                )
            }
        }
    }
}

/// Names the parts of one text in the order it reads them: a copy the planner inserted is
/// said to be one the first time.
struct Naming<'n> {
    planned: &'n Function,
    names: &'n UserNames,
    /// The copies said so far, by their place in `names`.
    said: Vec<usize>,
}

impl Naming<'_> {
    /// `v` quoted, or said to be a copy.
    fn tile(&mut self, v: VarId) -> String {
        match self.names.copies.iter().position(|c| c.var == v) {
            Some(k) if !self.said.contains(&k) => {
                self.said.push(k);
                self.names.copies[k].said.clone()
            }
            // A finding names its plan's tiles; `?` as the checker says one it cannot find.
            _ => format!(
                "'{}'",
                self.planned.vars.get(v).map_or("?", |v| v.name.as_str())
            ),
        }
    }

    fn who(&mut self, who: &Who) -> String {
        match *who {
            Who::Tile(v) => self.tile(v),
            Who::SitsWith { group, tile } => {
                let group = self.tile(group);
                format!("{group}, which {} sits with,", self.tile(tile))
            }
            Who::StorageOf { root, tile } => {
                let root = self.tile(root);
                format!("{root}, whose storage {} is,", self.tile(tile))
            }
        }
    }

    /// A finding's text, with the copies it names said where it first names them.
    fn text(&mut self, text: &Text) -> String {
        text.render(&mut |v| self.tile(v))
    }
}

/// How the diagnostics about one plan name the tiles the user did not write (a `tile.move`
/// the fixups or a repair inserted: a variable numbered past the input's `user_vars`): each
/// is said to be a copy of the user's tile it copies, where a text first names it, since the
/// input holds only the user's names. Made once per plan: a round names every candidate's
/// repair against one plan.
pub(crate) struct UserNames {
    copies: Vec<InsertedCopy>,
}

/// An inserted copy: its variable, and as the user is told of it.
struct InsertedCopy {
    var: VarId,
    said: String,
}

impl UserNames {
    pub fn of(user_vars: usize, planned: &Function) -> UserNames {
        let mut copies: Vec<(VarId, VarId)> = Vec::new();
        crate::plan::analysis::lifetimes::visit_assignments(&planned.body, &mut |target, value| {
            if target.index() >= user_vars
                && let Some(call) = value.as_call()
                && crate::ir::ops::op_role(call.op()) == crate::ir::ops::OpRole::Move
                && let Some(source) = call.args.first().and_then(crate::ir::Expr::as_var)
            {
                copies.push((target, source));
            }
        });
        // A copy of a copy is named by the tile at the start of the chain.
        let original = |mut v: VarId| {
            for _ in 0..copies.len() {
                match copies.iter().find(|&&(copy, _)| copy == v) {
                    Some(&(_, source)) => v = source,
                    None => break,
                }
            }
            v
        };
        let said = |&(copy, _): &(VarId, VarId)| {
            let quoted = format!("'{}'", planned.vars[copy].name);
            let source = original(copy);
            let said = if source.index() < user_vars {
                format!(
                    "{quoted} (a copy memreuse inserted for '{}')",
                    planned.vars[source].name
                )
            } else {
                format!("{quoted} (a copy memreuse inserted)")
            };
            InsertedCopy { var: copy, said }
        };
        UserNames {
            copies: copies.iter().map(said).collect(),
        }
    }

    /// A finding as the user is told of it: each of its texts says a copy to be one where it
    /// first names it.
    pub fn word(&self, planned: &Function, finding: &Worded) -> Diagnostic {
        finding.said(|text| self.say(planned, text))
    }

    fn naming<'n>(&'n self, planned: &'n Function) -> Naming<'n> {
        Naming {
            planned,
            names: self,
            said: Vec::new(),
        }
    }

    /// One text as the user is told of it.
    fn say(&self, planned: &Function, text: &Text) -> String {
        self.naming(planned).text(text)
    }
}
