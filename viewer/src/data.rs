//! The viewer's data: one JSON document per function, built from the same outcomes, reports
//! and diagnostics `plan --emit json` prints (and the tiles and live-bytes curve the SVG
//! draws), plus where each statement sits in the source, for an x axis in source lines.
//!
//! Pure: no sockets, no files. The server and `plan --emit html` both call it.

use std::path::Path;
use std::sync::Arc;

use memreuse::analysis::lifetimes::{StatementMap, statement_map};
use memreuse::db::{FileOutcome, FileStatus, FunctionOutcome, Workspace};
use memreuse::ir::{self, Function, LineIndex, Type};
use memreuse::json::diagnostic_json;
use memreuse::plan::{PlanConfig, PlanReport, Planner, live_bytes_at};
use memreuse::repair::is_repair;
use memreuse::store::Cache;
use memreuse::svg;
use memreuse::system::System;
use serde_json::{Value, json};

/// The plans the page can switch between: PyPTO's decision made safe (the default), the
/// offset planner's, and PyPTO's decision unchanged (`--exact`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanVariant {
    Pypto,
    Dsa,
    Exact,
}

impl PlanVariant {
    /// Every variant, the default first.
    pub const ALL: [PlanVariant; 3] = [PlanVariant::Pypto, PlanVariant::Dsa, PlanVariant::Exact];

    /// Its name in the page's requests and documents.
    pub fn name(self) -> &'static str {
        match self {
            PlanVariant::Pypto => "pypto",
            PlanVariant::Dsa => "dsa",
            PlanVariant::Exact => "exact",
        }
    }

    pub fn from_name(name: &str) -> Option<PlanVariant> {
        PlanVariant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// `base` changed to make this plan of a file with or without Step 0
    /// (`materialize_aliases`).
    pub fn config(self, base: &PlanConfig, materialize_aliases: bool) -> PlanConfig {
        PlanConfig {
            materialize_aliases,
            planner: match self {
                PlanVariant::Dsa => Planner::Dsa,
                PlanVariant::Pypto | PlanVariant::Exact => Planner::Pypto,
            },
            exact: self == PlanVariant::Exact,
            ..*base
        }
    }
}

/// Plans one file's `text` with `config` (Step 0 as it says) through `cache`, with complete
/// reports. Plans found in the cache are not made again; the ones made are stored, so the
/// next page is served from it.
pub fn plan_text(
    system: &dyn System,
    path: &Path,
    text: &str,
    config: PlanConfig,
    cache: &Arc<Cache>,
) -> Option<FileOutcome> {
    plan_variants(system, path, text, &[config], cache, None)
        .outcomes
        .pop()?
}

/// A file planned in several variants, and its functions as parsed once for them all.
pub struct PlannedVariants {
    /// Per variant asked for, its outcome (`None` when planning gave none).
    pub outcomes: Vec<Option<FileOutcome>>,
    pub functions: Vec<Arc<Function>>,
}

/// [`plan_text`] for each of `configs` (which agree on Step 0): the page's variants (the
/// daemon plans only the default one). One workspace plans them all, so the file is parsed
/// once, not once per variant. With `only`, only that function is planned (where the store
/// does not hold the file's plans): its outcome holds no other function.
pub fn plan_variants(
    system: &dyn System,
    path: &Path,
    text: &str,
    configs: &[PlanConfig],
    cache: &Arc<Cache>,
    only: Option<&str>,
) -> PlannedVariants {
    let Some(&first) = configs.first() else {
        return PlannedVariants {
            outcomes: Vec::new(),
            functions: Vec::new(),
        };
    };
    let mut workspace = Workspace::new(cache.clone(), first);
    let file = workspace.set_file(path, text, first.materialize_aliases);
    let outcomes = configs
        .iter()
        .map(|&config| {
            workspace.set_settings(config);
            let mut outcome = match only {
                Some(name) => workspace.plan_function(file, name)?,
                None => workspace.plan(system, &[file], 1, &|| {}).pop()?,
            };
            workspace.add_report_detail(&mut outcome, only);
            Some(outcome)
        })
        .collect();
    PlannedVariants {
        outcomes,
        functions: workspace.parsed_functions(file),
    }
}

/// The figures of one file for the page's list: per function its status and, per memory
/// space, footprint, lower bound and capacity; repairs and errors counted.
pub fn file_entry(display: &str, outcome: &FileOutcome) -> Value {
    let text = outcome.text.held().unwrap_or("");
    let (status, diagnostics, functions): (&str, Vec<Value>, Vec<Value>) = match &*outcome.status {
        FileStatus::NeedsText => (
            "failed",
            vec![plain_error("the text was not loaded")],
            vec![],
        ),
        FileStatus::Unreadable(err) => (
            "failed",
            vec![plain_error(&format!("cannot read {display}: {err}"))],
            vec![],
        ),
        FileStatus::NotAProgram => ("skipped", vec![], vec![]),
        FileStatus::ParseFailed(diagnostics) => {
            let lines = LineIndex::new(text);
            (
                "failed",
                diagnostics
                    .iter()
                    .map(|d| with_source_line(diagnostic_json(d, text, &lines), text))
                    .collect(),
                vec![],
            )
        }
        FileStatus::Planned { functions, .. } => {
            let entries: Vec<Value> = functions.iter().map(function_entry).collect();
            let failed = functions.iter().any(|f| f.result.is_err());
            (if failed { "failed" } else { "planned" }, vec![], entries)
        }
    };
    json!({
        "path": display,
        "status": status,
        "diagnostics": diagnostics,
        "functions": functions,
    })
}

/// A located diagnostic with the text of its line, for the page to quote.
fn with_source_line(mut value: Value, text: &str) -> Value {
    let line = value["line"]
        .as_u64()
        .and_then(|n| text.lines().nth(n.checked_sub(1)? as usize));
    if let (Value::Object(map), Some(line)) = (&mut value, line) {
        map.insert("source_line".into(), Value::from(line));
    }
    value
}

/// The list entry of a file that could not be read, and why.
pub fn unreadable_entry(display: &str, message: &str) -> Value {
    json!({
        "path": display,
        "status": "failed",
        "diagnostics": [plain_error(message)],
        "functions": [],
    })
}

fn plain_error(message: &str) -> Value {
    json!({ "code": memreuse::ir::codes::UNREADABLE, "severity": "error", "message": message,
            "line": null, "col": null })
}

fn function_entry(f: &FunctionOutcome) -> Value {
    match &f.result {
        Ok(planned) => {
            let report = planned.report.summary();
            json!({
                "name": f.name.as_str(),
                "status": "planned",
                "spaces": report.spaces.iter().map(|s| json!({
                    "space": s.space.name(),
                    "tiles": s.tiles,
                    "footprint": s.footprint,
                    "lower_bound": s.lower_bound,
                    "capacity": s.capacity,
                })).collect::<Vec<_>>(),
                "footprint": report.spaces.iter().map(|s| s.footprint).sum::<i64>(),
                "lower_bound": report.spaces.iter().map(|s| s.lower_bound).sum::<i64>(),
                "tiles": report.spaces.iter().map(|s| s.tiles).sum::<usize>(),
                "repairs": report.diagnostics.iter().filter(|d| is_repair(d)).count(),
                "errors": 0,
            })
        }
        Err((kind, diagnostics)) => json!({
            "name": f.name.as_str(),
            "status": "failed",
            "failure": kind.name(),
            "spaces": [],
            "footprint": 0,
            "lower_bound": 0,
            "tiles": 0,
            "repairs": 0,
            "errors": diagnostics.len(),
        }),
    }
}

/// One plan variant of a file: which, the file's outcome planned so, and the configuration it
/// was planned with (Step 0 included).
pub struct PlannedVariant<'a> {
    pub variant: PlanVariant,
    pub outcome: &'a FileOutcome,
    pub config: PlanConfig,
    /// The lines of the outcome's text, indexed once for all its functions.
    lines: LineIndex,
}

impl<'a> PlannedVariant<'a> {
    pub fn new(
        variant: PlanVariant,
        outcome: &'a FileOutcome,
        config: PlanConfig,
    ) -> PlannedVariant<'a> {
        let lines = LineIndex::new(outcome.text.held().unwrap_or(""));
        PlannedVariant {
            variant,
            outcome,
            config,
            lines,
        }
    }
}

/// A planned file as the documents of its functions need it: parsed and its lines indexed
/// once (a real dump holds dozens of functions in megabytes of text).
pub struct PlannedFile<'a> {
    display: &'a str,
    outcome: &'a FileOutcome,
    text: &'a str,
    lines: LineIndex,
    functions: Vec<Arc<Function>>,
}

impl<'a> PlannedFile<'a> {
    /// The file shown as `display`, planned as `outcome` (the default variant's).
    pub fn new(display: &'a str, outcome: &'a FileOutcome) -> PlannedFile<'a> {
        let text = outcome.text.held().unwrap_or("");
        let functions = ir::parse_program(text)
            .map(|p| p.functions.into_iter().map(Arc::new).collect())
            .unwrap_or_default();
        PlannedFile::with_functions(display, outcome, functions)
    }

    /// The same with the file's `functions` as parsed already ([`PlannedVariants`]).
    pub fn with_functions(
        display: &'a str,
        outcome: &'a FileOutcome,
        functions: Vec<Arc<Function>>,
    ) -> PlannedFile<'a> {
        let text = outcome.text.held().unwrap_or("");
        PlannedFile {
            display,
            outcome,
            text,
            lines: LineIndex::new(text),
            functions,
        }
    }
}

/// One function's document: its source, statement lines, loops and `if` arms, its tiles'
/// types, and per plan variant the tiles, buffers, live bytes, lower bound, capacity,
/// repairs and diagnostics, with the statement lines, loops and `if` arms of the function
/// its lifetimes number (repairs add statements). `None` when the file has no function
/// `name`.
pub fn function_document(
    file: &PlannedFile,
    name: &str,
    variants: &[PlannedVariant],
) -> Option<Value> {
    let PlannedFile {
        display,
        outcome,
        text,
        lines,
        functions,
    } = file;
    let line_of = |offset: u32| lines.line_col(text, offset).line;
    let function = functions.iter().find(|f| f.name == name).map(|f| &**f);
    let known = match &*outcome.status {
        FileStatus::Planned { functions, .. } => functions.iter().any(|f| f.name == name),
        _ => false,
    };
    if !known {
        return None;
    }
    let map_of_input = function.map(statement_map).unwrap_or_default();
    let (first_line, source) = match function {
        Some(f) => source_lines(text, f.span, line_of(f.span.start)),
        None => (1, Vec::new()),
    };
    let mut plans = serde_json::Map::new();
    let mut types = function.map_or_else(serde_json::Map::new, |f| tile_types(f, &line_of));
    // Variants drawn so far whose report had no repair: a later variant with the same report
    // on the same text draws the same, so its plan is that variant's name (the page resolves
    // it). PyPTO's exact plan is its repaired one wherever nothing was repaired: a sixth of
    // the real programs' page.
    let mut unrepaired: Vec<(&str, &PlanReport, &str)> = Vec::new();
    for PlannedVariant {
        variant,
        outcome: variant_outcome,
        config,
        lines: own_lines,
    } in variants
    {
        let entry = match &*variant_outcome.status {
            FileStatus::Planned { functions, .. } => functions.iter().find(|f| f.name == name),
            _ => None,
        };
        let (variant_text, variant_lines) = match variant_outcome.text.held() {
            Some(own) => (own, own_lines),
            None => (*text, lines),
        };
        let value = match entry.map(|f| &f.result) {
            Some(Ok(planned)) => {
                let report = planned.report.detailed();
                let report = report.unwrap_or_else(|| planned.report.summary());
                let repaired = report.diagnostics.iter().any(is_repair);
                let same = unrepaired.iter().find(|(_, other, other_text)| {
                    !repaired
                        && *other == report
                        && (std::ptr::eq(*other_text, variant_text) || *other_text == variant_text)
                });
                if let Some((same, _, _)) = same {
                    plans.insert(variant.name().to_string(), Value::from(*same));
                    continue;
                }
                if !repaired {
                    unrepaired.push((variant.name(), report, variant_text));
                }
                let edited = function
                    .filter(|_| repaired)
                    .and_then(|f| numbered_function(f, config));
                // The tiles repairs add (copies of inits) are typed where they were added.
                if let Some(edited) = &edited {
                    for (name, ty) in tile_types(edited, &line_of) {
                        types.entry(name).or_insert(ty);
                    }
                }
                let map = edited.as_ref().map(statement_map);
                let map = map.as_ref().unwrap_or(&map_of_input);
                // Every variant's outcome is asked for with its detail; the summary would
                // draw a plan without buffers rather than fail the page.
                let mut plan = plan_json(report, map, variant_text, variant_lines);
                if let Value::Object(fields) = &mut plan {
                    fields.insert("statements".into(), statements_json(map, &line_of));
                    fields.insert("loops".into(), loops_json(map, &line_of));
                    fields.insert("ifs".into(), ifs_json(map, &line_of));
                }
                plan
            }
            Some(Err((kind, diagnostics))) => json!({
                "status": "failed",
                "failure": kind.name(),
                "diagnostics": diagnostics.iter().map(|d| diagnostic_json(d, variant_text, variant_lines)).collect::<Vec<_>>(),
            }),
            None => json!({ "status": "failed", "failure": "plan", "diagnostics": [] }),
        };
        plans.insert(variant.name().to_string(), value);
    }
    Some(json!({
        "path": display,
        "function": name,
        "statements": statements_json(&map_of_input, &line_of),
        "loops": loops_json(&map_of_input, &line_of),
        "ifs": ifs_json(&map_of_input, &line_of),
        "types": types,
        "source": { "first_line": first_line, "lines": source },
        "plans": plans,
    }))
}

/// The function whose statements a repaired plan's lifetimes number: the input as the
/// repairs left it (they add a `tile.alloc` per new buffer and the `tile.move`s that feed
/// it). Planned again here, as the engine planned it; `None` when that fails.
fn numbered_function(f: &Function, config: &PlanConfig) -> Option<Function> {
    let options = memreuse::repair::verify_options(config);
    memreuse::repair::repaired_input(f, config, &options).ok()?
}

/// The line of each statement; `null` for one a repair added without a place of its own
/// (the `tile.alloc` of a new buffer).
fn statements_json(map: &StatementMap, line_of: &impl Fn(u32) -> u32) -> Value {
    map.spans
        .iter()
        .map(|s| {
            if s.start == s.end {
                Value::Null
            } else {
                Value::from(line_of(s.start))
            }
        })
        .collect()
}

fn loops_json(map: &StatementMap, line_of: &impl Fn(u32) -> u32) -> Value {
    map.loops
        .iter()
        .map(|&(first, last)| {
            json!({
                "first": first,
                "last": last,
                "line": map.spans.get(first as usize).map(|s| line_of(s.start)),
            })
        })
        .collect()
}

fn ifs_json(map: &StatementMap, line_of: &impl Fn(u32) -> u32) -> Value {
    map.ifs
        .iter()
        .map(|arms| {
            json!({
                "then": [arms.then_arm.0, arms.then_arm.1],
                "else": [arms.else_arm.0, arms.else_arm.1],
                "line": line_of(arms.span.start),
            })
        })
        .collect()
}

/// The lines of `text` that hold `span`, with the number of the first (`first`).
fn source_lines(text: &str, span: ir::Span, first: u32) -> (u32, Vec<&str>) {
    // From the line holding the span's start to the one holding its end, cut out of the text
    // directly: counting lines from the file's start made a file of many functions quadratic.
    let end = (span.end as usize).min(text.len());
    let start = (span.start as usize).min(end);
    let from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = text[end..].find('\n').map_or(text.len(), |i| end + i);
    (first, text[from..to].lines().collect())
}

/// Each tile variable's dtype, shape and line of definition, by name (a name assigned twice:
/// its last one).
fn tile_types(f: &Function, line_of: &impl Fn(u32) -> u32) -> serde_json::Map<String, Value> {
    let mut types = serde_json::Map::new();
    for (_, var) in f.vars.iter() {
        if let Some(Type::Tile(tile)) = &var.ty {
            let shape: Vec<String> = tile
                .shape
                .iter()
                .map(|dim| ir::print::expr_text(&f.vars, dim))
                .collect();
            types.insert(
                var.name.to_string(),
                json!({ "dtype": tile.dtype.name(), "shape": shape, "line": line_of(var.span.start) }),
            );
        }
    }
    types
}

/// One plan: per memory space its buffers, tiles (each with its buffer, bytes, lifetime in
/// statements and the `if` arms it is defined in) and live bytes per statement; the repairs
/// and other diagnostics.
fn plan_json(report: &PlanReport, map: &StatementMap, text: &str, lines: &LineIndex) -> Value {
    // Every `if` arm holding the statement, innermost first (the narrowest arms).
    let arms_of = |statement: u32| -> Value {
        let mut arms: Vec<(u32, usize, u8)> = map
            .ifs
            .iter()
            .enumerate()
            .filter_map(|(i, arms)| {
                let within = |(start, end): (u32, u32)| start <= statement && statement < end;
                let arm = if within(arms.then_arm) {
                    0
                } else if within(arms.else_arm) {
                    1
                } else {
                    return None;
                };
                Some((arms.else_arm.1 - arms.then_arm.0, i, arm))
            })
            .collect();
        arms.sort_unstable();
        arms.iter().map(|&(_, i, arm)| json!([i, arm])).collect()
    };
    let spaces: Vec<Value> = report
        .spaces
        .iter()
        .map(|space| {
            let tiles = svg::tiles(space, &report.lifetimes);
            let t0 = tiles.iter().map(|t| t.def).min().unwrap_or(0);
            let t1 = tiles.iter().map(|t| t.end).max().unwrap_or(t0);
            let live = live_bytes_at(&space.live, t0, (t1 - t0) as usize);
            json!({
                "space": space.space.name(),
                "capacity": space.capacity,
                "lower_bound": space.lower_bound,
                "footprint": space.footprint,
                "pypto_footprint": space.pypto_footprint,
                "tiles_planned": space.tiles,
                "buffers": space.buffers.iter().enumerate().map(|(i, b)| json!({
                    "base": b.base.as_str(),
                    "size": b.size,
                    "offset": b.offset,
                    "pinned": b.pinned,
                    "members": b.members.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
                    "colour": svg::colour(i),
                })).collect::<Vec<_>>(),
                "tiles": tiles.iter().map(|t| json!({
                    "name": t.name,
                    "buffer": t.buffer,
                    "offset": t.offset,
                    "size": t.size,
                    "def": t.def,
                    "last": t.last,
                    "end": t.end,
                    "arms": arms_of(t.def),
                })).collect::<Vec<_>>(),
                "live": { "from": t0, "bytes": live },
            })
        })
        .collect();
    json!({
        "status": "planned",
        "spaces": spaces,
        "repairs": report.diagnostics.iter().filter(|d| is_repair(d)).map(|d| {
            let mut value = diagnostic_json(d, text, lines);
            if let Value::Object(map) = &mut value {
                map.insert("hint".into(), d.hint.as_deref().map_or(Value::Null, Value::from));
            }
            value
        }).collect::<Vec<_>>(),
        "diagnostics": report.diagnostics.iter().filter(|d| !is_repair(d)).map(|d| diagnostic_json(d, text, lines)).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use memreuse::system::OsSystem;

    fn no_cache() -> Arc<Cache> {
        Arc::new(Cache::disabled())
    }

    const KERNEL: &str =
        include_str!("../../examples/kernels/if_phi_select/31_after_InitMemRef.py");

    /// Each drawn tile's definition statement sits on the line that defines its variable,
    /// in the repaired plans of the repair fixtures too (whose repairs add statements).
    #[test]
    fn tiles_are_defined_on_their_variables_lines_in_repaired_plans() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/repair");
        let mut checked = 0;
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .expect("repair fixtures")
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "py")
                    && !p.to_string_lossy().ends_with(".out.py")
            })
            .collect();
        entries.sort();
        let mut wrong = Vec::new();
        for path in entries {
            let text = std::fs::read_to_string(&path).expect("fixture");
            let step0 = text.contains("step0=on");
            let backend = ["910b", "950"]
                .into_iter()
                .find(|b| text.contains(&format!("backend={b}")))
                .and_then(memreuse::backend::Backend::from_name)
                .unwrap_or_default();
            let config = PlanConfig {
                backend,
                ..PlanConfig::default()
            };
            let config = PlanConfig {
                materialize_aliases: step0,
                ..config
            };
            let Some(outcome) = plan_text(&OsSystem, &path, &text, config, &no_cache()) else {
                continue;
            };
            let FileStatus::Planned { functions, .. } = &*outcome.status else {
                continue;
            };
            for f in functions {
                let variant = PlannedVariant::new(PlanVariant::Pypto, &outcome, config);
                let file = PlannedFile::new("f.py", &outcome);
                let Some(doc) = function_document(&file, &f.name, &[variant]) else {
                    continue;
                };
                for space in doc["plans"]["pypto"]["spaces"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    for tile in space["tiles"].as_array().into_iter().flatten() {
                        let name = tile["name"].as_str().unwrap_or("");
                        let at = doc["plans"]["pypto"]["statements"]
                            [tile["def"].as_u64().unwrap_or(0) as usize]
                            .clone();
                        let defined = doc["types"][name]["line"].clone();
                        checked += 1;
                        if at != defined {
                            wrong.push(format!(
                                "{}: {name} drawn from line {at}, defined on {defined}",
                                path.display()
                            ));
                        }
                    }
                }
            }
        }
        assert!(checked > 20, "{checked}");
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn a_function_document_has_every_tile_with_its_lines_and_all_variants() {
        let path = Path::new("k.py");
        let config = PlanConfig::default();
        let outcomes: Vec<(PlanVariant, FileOutcome)> = PlanVariant::ALL
            .into_iter()
            .map(|v| {
                let config = v.config(&config, false);
                let outcome =
                    plan_text(&OsSystem, path, KERNEL, config, &no_cache()).expect("planned");
                (v, outcome)
            })
            .collect();
        let variants: Vec<PlannedVariant> = outcomes
            .iter()
            .map(|&(v, ref o)| PlannedVariant::new(v, o, v.config(&config, false)))
            .collect();
        let entry = file_entry("k.py", &outcomes[0].1);
        let name = entry["functions"][0]["name"]
            .as_str()
            .expect("a function")
            .to_string();
        let file = PlannedFile::new("k.py", &outcomes[0].1);
        let doc = function_document(&file, &name, &variants).expect("document");
        let statements = doc["statements"].as_array().expect("statements");
        assert!(!statements.is_empty());
        for variant in PlanVariant::ALL.map(PlanVariant::name) {
            let mut plan = &doc["plans"][variant];
            // A plan another variant's equals names that variant: it comes before it.
            if let Some(same) = plan.as_str() {
                let position = |name| PlanVariant::ALL.iter().position(|v| v.name() == name);
                assert!(position(same) < position(variant));
                plan = &doc["plans"][same];
            }
            assert_eq!(plan["status"], "planned", "{variant}: {plan}");
            for space in plan["spaces"].as_array().expect("spaces") {
                let tiles = space["tiles"].as_array().expect("tiles");
                assert_eq!(
                    tiles.len() as u64,
                    space["tiles_planned"].as_u64().unwrap_or(0)
                );
                // One definition of live bytes: the curve drawn peaks at the lower bound.
                let live = space["live"]["bytes"].as_array().expect("live bytes");
                let peak = live.iter().filter_map(Value::as_i64).max().unwrap_or(0);
                assert_eq!(Some(peak), space["lower_bound"].as_i64(), "{variant}");
                for tile in tiles {
                    let def = tile["def"].as_u64().expect("def") as usize;
                    assert!(def < statements.len(), "{tile}");
                    assert!(doc["types"][tile["name"].as_str().expect("name")].is_object());
                }
            }
        }
        assert!(!doc["ifs"].as_array().expect("ifs").is_empty());
        // Nothing is repaired in this kernel: PyPTO's exact plan is its repaired one.
        assert_eq!(doc["plans"]["exact"], "pypto");
        assert!(function_document(&file, "no_such", &variants).is_none());
    }
}
