//! Conformance with upstream PyPTO: every case of the generated corpus (`../shared/conformance/
//! generated`, each case's input to MemoryReuse and upstream's output or error) is planned the
//! way `memreuse plan` plans it, and classified:
//!
//! - `exact`: memreuse's output is upstream's, byte for byte;
//! - `seed rules`: memreuse's output is its `--exact` output under the seed rules (rules §S),
//!   which the snapshot lacks (`seed rules, repaired <codes>`: that output needs a repair
//!   where upstream's passes the checkers);
//! - `repaired <codes>`: upstream's output fails the checker (the check is named, and the value
//!   checker's `V007` is always among them), memreuse's `--exact` output is upstream's, and the
//!   default output is the repaired plan;
//! - `repaired <codes> + input hazard <codes>` (`input hazard <codes>` with no repair):
//!   as `repaired`, and the plan keeps a hazard the input itself carries, which no plan removes
//!   (`MR-W004`, the repair module's doc), as a located warning;
//! - `error as upstream`: upstream raised an error and memreuse reports one too (or upstream's
//!   own output overflows the capacity, so its AllocateMemoryAddr raises, rules §8);
//! - `unrepaired <code>`: memreuse reports an error where upstream produced a plan — not yet
//!   repaired (counted, and held below a committed ceiling so it can only fall);
//! - `differs`: anything else, a bug.
//!
//! First of all, every case is planned with `--rules snapshot --exact`: the upstream snapshot's
//! rules without the seed's, which must give upstream's output (or error) on every case; a
//! case where it does not is `differs`. Whether the seed rules change the output is measured,
//! per case, by diffing the seed's `--exact` output against that one (the report's
//! `seed rules` column).
//!
//! The test fails on any `differs`, on `exact` falling below its committed figure, on
//! `unrepaired` or `input hazard` rising above its ceiling, and when
//! its report differs from the committed `tests/conformance/REPORT.md` (whole corpus) or
//! `REPORT-subset.md` (`UPDATE_EXPECT=1` rewrites it; the subset is the representative
//! subset copied into `tests/data/conformance/`, run when the corpus is absent or when
//! `MEMREUSE_CONFORMANCE=subset`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memreuse::backend::Backend;
use memreuse::ir::{Program, parse_program, print_program};
use memreuse::plan::{PlanConfig, Rules, address, capacity, layout};
use memreuse::repair::{SafePlanError, is_input_hazard, is_repair, plan_program_checked};
use memreuse::verify::{VerifyOptions, program_violations};
use memreuse_test_support::manifest_rows;

#[path = "support/input_hazards.rs"]
mod input_hazards;
use input_hazards::safe_plan;

/// Committed figures: (corpus, exact at least, unrepaired at most, input hazard at most: a
/// hazard no plan removes is accepted only where the input proves it, so the count only falls).
const FIGURES: [(&str, usize, usize, usize); 2] = [("generated", 181, 0, 6), ("subset", 6, 0, 2)];

struct Corpus {
    name: &'static str,
    dir: PathBuf,
    report: PathBuf,
}

fn corpus() -> Corpus {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/conformance/generated");
    // `MEMREUSE_CONFORMANCE=subset` runs the subset even beside the corpus.
    let subset_asked = std::env::var("MEMREUSE_CONFORMANCE").is_ok_and(|v| v == "subset");
    if shared.join("MANIFEST.tsv").is_file() && !subset_asked {
        Corpus {
            name: "generated",
            dir: shared,
            report: root.join("tests/conformance/REPORT.md"),
        }
    } else {
        if !subset_asked {
            eprintln!(
                "no corpus at {} (../shared is not beside the clone): running the bundled subset in tests/data/conformance",
                shared.display()
            );
        }
        Corpus {
            name: "subset",
            dir: root.join("tests/data/conformance"),
            report: root.join("tests/conformance/REPORT-subset.md"),
        }
    }
}

struct Case {
    name: String,
    backend: Backend,
    upstream_ok: bool,
}

fn cases(dir: &Path) -> Vec<Case> {
    manifest_rows(dir)
        .iter()
        .map(|row| Case {
            name: row.cell("name").to_string(),
            backend: row.backend(),
            upstream_ok: row.cell("outcome") == "ok",
        })
        .collect()
}

enum Planned {
    /// A plan, with its repairs' codes, then `+ input hazard <codes>` for the input's own
    /// hazards it keeps.
    Ok {
        text: String,
        repairs: Vec<String>,
    },
    Err(String),
}

fn plan(program: &Program, backend: Backend, exact: bool, rules: Rules) -> Planned {
    let config = PlanConfig {
        backend,
        exact,
        rules,
        ..PlanConfig::default()
    };
    let options = VerifyOptions {
        backend,
        ..VerifyOptions::default()
    };
    match plan_program_checked(program, &config, &options) {
        Ok((planned, reports)) => {
            let codes = |keep: fn(&memreuse::diagnostics::Diagnostic) -> bool| {
                let mut codes: Vec<String> = reports
                    .iter()
                    .flat_map(|r| &r.diagnostics)
                    .filter(|d| keep(d))
                    .map(|d| d.code.to_string())
                    .collect();
                codes.sort();
                codes.dedup();
                codes
            };
            let mut repairs = codes(is_repair);
            // The input's own hazards are listed after the repairs: `repaired … + input hazard …`.
            let hazards = codes(is_input_hazard);
            if !hazards.is_empty() {
                repairs.push(format!("+ input hazard {}", hazards.join(" ")));
            }
            Planned::Ok {
                text: print_program(&planned),
                repairs,
            }
        }
        Err((_, SafePlanError::Plan(e))) => Planned::Err(e.0.code.to_string()),
        Err((_, SafePlanError::Unrepaired(d))) => {
            Planned::Err(format!("checker {}", d.first().map_or("?", |d| d.code)))
        }
    }
}

/// The checker's codes on upstream's own output.
fn upstream_findings(expected: &Program, backend: Backend) -> Vec<String> {
    let options = VerifyOptions {
        backend,
        ..VerifyOptions::default()
    };
    let mut codes: Vec<String> = program_violations(expected, &options)
        .into_iter()
        .map(|(_, d)| d.code.to_string())
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

/// Whether upstream's output needs more of some space than the backend has (its
/// AllocateMemoryAddr then raises the overflow error).
fn upstream_overflows(expected: &Program, backend: Backend) -> bool {
    let config = PlanConfig {
        backend,
        ..PlanConfig::default()
    };
    expected.functions.iter().any(|f| {
        let Ok(reserved) = layout::reserved_windows(f) else {
            return false;
        };
        capacity::gets_addresses(f)
            && address::check_capacity(f, &address::allocate(f, &reserved), &reserved, &config)
                .is_err()
    })
}

/// Whether two plans are the same output: the same text, or the same error.
fn same_output(a: &Planned, b: &Planned) -> bool {
    match (a, b) {
        (Planned::Ok { text: a, .. }, Planned::Ok { text: b, .. }) => a == b,
        (Planned::Err(a), Planned::Err(b)) => a == b,
        _ => false,
    }
}

/// A case's verdict and detail, and whether the seed rules change memreuse's `--exact`
/// output (the seed's `--exact` against the snapshot's, rules §S).
fn classify(dir: &Path, case: &Case) -> (String, String, bool) {
    let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{}.{ext}", case.name)));
    let input = parse_program(&read("input.py").expect("input")).expect("input parses");
    let safe = plan(&input, case.backend, false, Rules::Seed);
    let snapshot = plan(&input, case.backend, true, Rules::Snapshot);
    let seed_changes = !same_output(&plan(&input, case.backend, true, Rules::Seed), &snapshot);
    let (verdict, detail) = verdict(&read, case, &safe, &snapshot, seed_changes);
    (verdict, detail, seed_changes)
}

fn verdict(
    read: &dyn Fn(&str) -> std::io::Result<String>,
    case: &Case,
    safe: &Planned,
    snapshot: &Planned,
    seed_changes: bool,
) -> (String, String) {
    if !case.upstream_ok {
        let upstream = read("error.txt").unwrap_or_default();
        let upstream = upstream.lines().next().unwrap_or("").to_string();
        return match (safe, snapshot) {
            (Planned::Err(code), Planned::Err(_)) => (
                "error as upstream".into(),
                format!("{code}; upstream: {upstream}"),
            ),
            (Planned::Ok { .. }, _) => (
                "differs".into(),
                format!("memreuse plans it; upstream: {upstream}"),
            ),
            (_, Planned::Ok { .. }) => (
                "differs".into(),
                format!("--rules snapshot --exact plans it; upstream: {upstream}"),
            ),
        };
    }
    let expected_text = read("expected.py").expect("expected output");
    let expected = parse_program(&expected_text).expect("upstream's output parses");
    // The mechanical check: without the seed rules, PyPTO's decision is upstream's output.
    match snapshot {
        Planned::Ok { text, .. } if *text == expected_text => {}
        Planned::Ok { .. } => {
            return (
                "differs".into(),
                "--rules snapshot --exact differs from upstream's output".into(),
            );
        }
        Planned::Err(code) => {
            return (
                "differs".into(),
                format!("--rules snapshot --exact fails with {code}"),
            );
        }
    }
    let seed_note = |detail: String| match seed_changes {
        true => format!("{detail}; the seed rules change the --exact output"),
        false => detail,
    };
    match safe {
        Planned::Ok { text, repairs } if *text == expected_text => match repairs.as_slice() {
            // Upstream's plan, whose findings are all the input's own.
            [hazards] if hazards.starts_with("+ ") => (
                repaired_verdict(repairs),
                format!(
                    "memreuse's output is upstream's, byte for byte; upstream's output fails {}, all of it the input's own hazard",
                    upstream_findings(&expected, case.backend).join(" ")
                ),
            ),
            [] => ("exact".into(), String::new()),
            // A repair says memreuse changed PyPTO's decision: on upstream's own output it lies.
            _ => (
                "differs".into(),
                format!(
                    "upstream's output, yet reported as repaired: {}",
                    repairs.join(" ")
                ),
            ),
        },
        Planned::Ok { repairs, .. } if repairs.is_empty() && seed_changes => (
            "seed rules".into(),
            "the default output is the seed's --exact output, which differs from the snapshot's"
                .into(),
        ),
        Planned::Ok { repairs, .. } if !repairs.is_empty() => {
            let findings = upstream_findings(&expected, case.backend);
            if !findings.is_empty() {
                (
                    repaired_verdict(repairs),
                    seed_note(format!("upstream's output fails {}", findings.join(" "))),
                )
            } else if seed_changes {
                (
                    format!("seed rules, repaired {}", repairs.join(" ")),
                    "upstream's output passes the checkers; the seed rules change the --exact plan, which needs the repair".into(),
                )
            } else {
                (
                    "differs".into(),
                    format!(
                        "repaired {} but upstream's output passes the checker",
                        repairs.join(" ")
                    ),
                )
            }
        }
        Planned::Ok { .. } => (
            "differs".into(),
            "the default output differs from upstream's with no repair and no seed rule".into(),
        ),
        Planned::Err(code) if code == "MR-E008" && upstream_overflows(&expected, case.backend) => (
            "error as upstream".into(),
            "MR-E008: upstream's own output overflows, so its AllocateMemoryAddr raises (rules §8)"
                .into(),
        ),
        Planned::Err(code) => {
            let findings = upstream_findings(&expected, case.backend);
            (
                format!("unrepaired {code}"),
                seed_note(format!("upstream's output fails {}", findings.join(" "))),
            )
        }
    }
}

/// `repaired <codes>`, with `+ input hazard <codes>` when the plan keeps hazards of the input
/// itself (only `input hazard <codes>` when nothing else needed a repair).
fn repaired_verdict(repairs: &[String]) -> String {
    match repairs {
        [only] if only.starts_with("+ ") => only[2..].to_string(),
        _ => format!("repaired {}", repairs.join(" ")),
    }
}

#[test]
fn upstream_conformance() {
    let corpus = corpus();
    let cases = cases(&corpus.dir);
    assert!(!cases.is_empty(), "no cases in {}", corpus.dir.display());
    let mut rows = Vec::new();
    let mut totals: BTreeMap<String, usize> = BTreeMap::new();
    let mut seed_changes_total = 0;
    for case in &cases {
        let (verdict, detail, seed_changes) = classify(&corpus.dir, case);
        let kind = verdict.split(' ').next().unwrap_or("").to_string();
        let kind = match kind.as_str() {
            _ if verdict.contains("input hazard") => "input hazard".to_string(),
            "seed" => "seed rules".to_string(),
            "error" => "error as upstream".to_string(),
            _ => kind,
        };
        *totals.entry(kind).or_default() += 1;
        seed_changes_total += usize::from(seed_changes);
        let seed = if seed_changes { "changes" } else { "same" };
        rows.push((
            case.name.clone(),
            case.backend.name(),
            verdict,
            seed,
            detail,
        ));
    }
    let mut report = String::new();
    let _ = writeln!(
        report,
        "# Conformance report ({}: {} cases)\n\nChecked by `cargo test --test conformance`, written with `UPDATE_EXPECT=1` (see the test's doc for the verdicts).\n",
        corpus.name,
        cases.len()
    );
    for (kind, n) in &totals {
        let _ = writeln!(report, "- {kind}: {n}");
    }
    let _ = writeln!(
        report,
        "\nThe seed rules (rules §S) change memreuse's `--exact` output on {seed_changes_total} cases: column `seed rules`, the seed's `--exact` output diffed against `--rules snapshot --exact`'s."
    );
    let _ = writeln!(
        report,
        "\n| case | backend | verdict | seed rules | detail |\n|---|---|---|---|---|"
    );
    for (name, backend, verdict, seed, detail) in &rows {
        let _ = writeln!(
            report,
            "| {name} | {backend} | {verdict} | {seed} | {detail} |"
        );
    }
    // The report is a snapshot: a run checks it, `UPDATE_EXPECT=1` writes it.
    let committed = std::fs::read_to_string(&corpus.report).unwrap_or_default();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(corpus.report.parent().expect("report dir")).expect("report dir");
        std::fs::write(&corpus.report, &report).expect("report written");
    } else {
        assert!(
            committed == report,
            "{} is not what this run found (UPDATE_EXPECT=1 rewrites it; review the diff)",
            corpus.report.display()
        );
    }
    eprintln!(
        "ran the {} corpus ({} cases): {totals:?}",
        corpus.name,
        cases.len()
    );

    let differs: Vec<_> = rows.iter().filter(|r| r.2 == "differs").collect();
    assert!(
        differs.is_empty(),
        "cases that differ from upstream: {differs:?}"
    );
    // Issue 14: where memreuse repairs upstream's plan, the value checker rejects upstream's
    // output too (a forbidden alias as the op's read of the input it overwrites), not only
    // the liveness checker.
    let without_lost_value: Vec<_> = rows
        .iter()
        .filter(|r| r.2.starts_with("repaired") && !r.4.contains(memreuse::ir::codes::VALUE_LOST))
        .collect();
    assert!(
        without_lost_value.is_empty(),
        "repaired cases whose upstream output the value checker accepts: {without_lost_value:?}"
    );
    let (_, exact_floor, unrepaired_ceiling, input_hazard_ceiling) = FIGURES
        .iter()
        .find(|f| f.0 == corpus.name)
        .copied()
        .expect("figures for the corpus");
    let exact = totals.get("exact").copied().unwrap_or(0);
    assert!(
        exact >= exact_floor,
        "exact fell to {exact} (committed: {exact_floor})"
    );
    let unrepaired = totals.get("unrepaired").copied().unwrap_or(0);
    assert!(
        unrepaired <= unrepaired_ceiling,
        "unrepaired rose to {unrepaired} (committed ceiling: {unrepaired_ceiling})"
    );
    let input_hazards = totals.get("input hazard").copied().unwrap_or(0);
    assert!(
        input_hazards <= input_hazard_ceiling,
        "input hazard rose to {input_hazards} (committed ceiling: {input_hazard_ceiling})"
    );
}

/// Every program upstream accepts gets a plan from the offset planner too (`--planner dsa`),
/// one both checkers pass, or whose only findings are the input's own hazards (`MR-W004`):
/// an overflow no layout avoids is left to AllocateMemoryAddr (`MR-W003`), as with PyPTO's
/// plan. Runs the bundled subset (in a debug build the offset planner takes minutes over the
/// whole corpus); `MEMREUSE_CONFORMANCE_DSA=corpus` runs the corpus beside the clone instead.
#[test]
fn every_accepted_program_gets_an_offset_plan() {
    use memreuse::plan::Planner;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let whole = std::env::var("MEMREUSE_CONFORMANCE_DSA").is_ok_and(|v| v == "corpus");
    let corpus = root.join("../shared/conformance/generated");
    let dir = if whole && corpus.join("MANIFEST.tsv").is_file() {
        corpus
    } else {
        if whole {
            eprintln!(
                "no corpus at {}: the offset planner runs the bundled subset",
                corpus.display()
            );
        }
        root.join("tests/data/conformance")
    };
    let mut planned_cases = 0;
    let mut overflows = 0;
    for case in cases(&dir).iter().filter(|c| c.upstream_ok) {
        let text = std::fs::read_to_string(dir.join(format!("{}.input.py", case.name)))
            .expect("input readable");
        let program = parse_program(&text).expect("input parses");
        let config = PlanConfig {
            backend: case.backend,
            planner: Planner::Dsa,
            ..PlanConfig::default()
        };
        let (_, reports) = safe_plan(
            &format!("{} (offset planner)", case.name),
            &program,
            &config,
        );
        overflows += usize::from(
            reports
                .iter()
                .flat_map(|r| &r.diagnostics)
                .any(|d| d.code == memreuse::ir::codes::CAPACITY_OVERFLOW_AHEAD),
        );
        planned_cases += 1;
    }
    eprintln!(
        "{planned_cases} accepted programs planned by the offset planner, {overflows} left to AllocateMemoryAddr's overflow"
    );
    // The subset holds g1007, whose Vec needs more than the 950 has in every layout.
    assert!(
        overflows > 0,
        "no case exercised the overflow left to AllocateMemoryAddr"
    );
}

/// Every program upstream accepts gets a plan both checkers pass under the snapshot's rules
/// too (`--rules snapshot`, the safe planner: plan, check, repair, check again), or one whose
/// only findings are the input's own hazards (`MR-W004`): the safe fixups make the writebacks
/// and copies the snapshot leaves out (seed rules S1/S2, `tests/data/seed_rules`), which no
/// repair edit would. The whole corpus beside the clone, else the bundled subset (which holds
/// g1006, a loop passing an iter arg on).
#[test]
fn every_accepted_program_gets_a_checked_plan_under_the_snapshot_rules() {
    let corpus = corpus();
    let mut planned_cases = 0;
    for case in cases(&corpus.dir).iter().filter(|c| c.upstream_ok) {
        let text = std::fs::read_to_string(corpus.dir.join(format!("{}.input.py", case.name)))
            .expect("input readable");
        let program = parse_program(&text).expect("input parses");
        let config = PlanConfig {
            backend: case.backend,
            rules: Rules::Snapshot,
            ..PlanConfig::default()
        };
        safe_plan(
            &format!("{} (snapshot rules)", case.name),
            &program,
            &config,
        );
        planned_cases += 1;
    }
    eprintln!(
        "{planned_cases} accepted programs of the {} corpus planned under the snapshot rules",
        corpus.name
    );
    assert!(
        planned_cases > 0,
        "no accepted case in {}",
        corpus.dir.display()
    );
}
