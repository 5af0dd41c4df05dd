//! Conformance with upstream PyPTO: every case of the generated corpus (`../shared/conformance/
//! generated`, each case's input to MemoryReuse and upstream's output or error) is planned the
//! way `memreuse plan` plans it, and classified:
//!
//! - `exact`: memreuse's output is upstream's, byte for byte;
//! - `seed rule S…`: memreuse follows a rule of the seed document (rules §S) that the upstream
//!   snapshot lacks; listed with the reason in `tests/conformance/seed_rules.tsv`;
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
//! The test fails on any `differs`, on `exact` falling below its committed figure, on
//! `unrepaired` or `input hazard` rising above its ceiling, and on a stale seed-rule entry, and when
//! its report differs from the committed `tests/conformance/REPORT.md` (whole corpus) or
//! `REPORT-subset.md` (`UPDATE_EXPECT=1` rewrites it; the subset is the representative
//! subset copied into `tests/data/conformance/`, run when the corpus is absent or when
//! `MEMREUSE_CONFORMANCE=subset`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memreuse::backend::Backend;
use memreuse::ir::{Program, parse_program, print_program};
use memreuse::plan::{PlanConfig, address, capacity, layout};
use memreuse::repair::{SafePlanError, is_input_hazard, is_repair, plan_program_checked};
use memreuse::verify::{VerifyOptions, program_violations};

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
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    manifest
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            Case {
                name: cols[0].to_string(),
                backend: Backend::from_name(cols[1]).expect("known backend"),
                upstream_ok: cols[3] == "ok",
            }
        })
        .collect()
}

/// `name → (rule, reason)` of the cases where a seed rule makes memreuse differ on purpose.
fn seed_rules() -> BTreeMap<String, (String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/seed_rules.tsv");
    let text = std::fs::read_to_string(path).expect("seed_rules.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut cols = l.splitn(3, '\t');
            let name = cols.next().unwrap_or_default().to_string();
            let rule = cols.next().unwrap_or_default().to_string();
            let reason = cols.next().unwrap_or_default().to_string();
            (name, (rule, reason))
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

fn plan(program: &Program, backend: Backend, exact: bool) -> Planned {
    let config = PlanConfig {
        backend,
        exact,
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

fn classify(
    dir: &Path,
    case: &Case,
    seeds: &BTreeMap<String, (String, String)>,
) -> (String, String) {
    let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{}.{ext}", case.name)));
    let input = parse_program(&read("input.py").expect("input")).expect("input parses");
    let safe = plan(&input, case.backend, false);
    if !case.upstream_ok {
        let upstream = read("error.txt").unwrap_or_default();
        let upstream = upstream.lines().next().unwrap_or("").to_string();
        return match safe {
            Planned::Err(code) => (
                "error as upstream".into(),
                format!("{code}; upstream: {upstream}"),
            ),
            Planned::Ok { .. } => (
                "differs".into(),
                format!("memreuse plans it; upstream: {upstream}"),
            ),
        };
    }
    let expected_text = read("expected.py").expect("expected output");
    let expected = parse_program(&expected_text).expect("upstream's output parses");
    let exact = plan(&input, case.backend, true);
    // The seed's S1/S2 write back an iter arg that an if arm or a yield passes on; with those
    // copies taken out, the --exact output must be upstream's.
    let (exact_matches, seed_copies) = match &exact {
        Planned::Ok { text, .. } if *text == expected_text => (true, None),
        Planned::Ok { text, .. } => match without_iter_arg_writebacks(text) {
            Some((normalized, rules)) if normalized == expected_text => (true, Some(rules)),
            _ => (false, None),
        },
        Planned::Err(_) => (false, None),
    };
    let seed_note = |detail: String| match &seed_copies {
        Some(rules) => format!(
            "{detail}; seed rule {rules}: an iter arg passed on is written back (the snapshot skips it)"
        ),
        None => detail,
    };
    if let Some((rule, reason)) = seeds.get(&case.name) {
        return match (&safe, exact_matches) {
            (Planned::Ok { repairs, .. }, false) if repairs.is_empty() => {
                (format!("seed rule {rule}"), reason.clone())
            }
            (Planned::Ok { repairs, .. }, false) => {
                let findings = upstream_findings(&expected, case.backend);
                let upstream = if findings.is_empty() {
                    "upstream's output passes the checkers (the repairs change the safe plan only)"
                        .to_string()
                } else {
                    format!("upstream's output fails {}", findings.join(" "))
                };
                (
                    format!("seed rule {rule}, repaired {}", repairs.join(" ")),
                    format!("{reason}; {upstream}"),
                )
            }
            _ => ("differs".into(), format!("stale seed-rule entry {rule}")),
        };
    }
    let overlapping_carries = matches!(&exact, Planned::Err(code) if code == "MR-E006");
    match safe {
        Planned::Ok { text, repairs } if text == expected_text => match repairs.as_slice() {
            // Upstream's plan, whose findings are all the input's own.
            [hazards] if hazards.starts_with("+ ") => (
                repaired_verdict(&repairs),
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
        Planned::Ok { repairs, .. } if seed_copies.is_some() && repairs.is_empty() => (
            format!("seed rule {}", seed_copies.clone().unwrap_or_default()),
            seed_note(
                "upstream's output fails ".to_string()
                    + &upstream_findings(&expected, case.backend).join(" "),
            ),
        ),
        Planned::Ok { repairs, .. }
            if (exact_matches || overlapping_carries) && !repairs.is_empty() =>
        {
            let findings = upstream_findings(&expected, case.backend);
            let mut detail = format!("upstream's output fails {}", findings.join(" "));
            if overlapping_carries {
                detail.push_str(
                    "; --exact refuses the carries on one buffer (MR-E006, seed rule S2)",
                );
            }
            if findings.is_empty() && overlapping_carries {
                (
                    format!("seed rule S2, repaired {}", repairs.join(" ")),
                    "upstream's output passes the checkers, but the seed's S2 rejects loop carries on one buffer (MR-E006, --exact), so memreuse gives one its own".into(),
                )
            } else if findings.is_empty() && seed_copies.is_some() {
                (
                    format!("seed rule S2, repaired {}", repairs.join(" ")),
                    seed_note("upstream's output passes the checkers; the seed's writeback makes the --exact plan need the repair".into()),
                )
            } else if findings.is_empty() {
                (
                    "differs".into(),
                    format!(
                        "repaired {} but upstream's output passes the checker",
                        repairs.join(" ")
                    ),
                )
            } else {
                (repaired_verdict(&repairs), seed_note(detail))
            }
        }
        Planned::Err(code) if code == "MR-E008" && upstream_overflows(&expected, case.backend) => (
            "error as upstream".into(),
            "MR-E008: upstream's own output overflows, so its AllocateMemoryAddr raises (rules §8)"
                .into(),
        ),
        Planned::Err(code) => {
            let findings = upstream_findings(&expected, case.backend);
            (
                format!("unrepaired {code}"),
                format!("upstream's output fails {}", findings.join(" ")),
            )
        }
        Planned::Ok { repairs, .. } => {
            let exact = match &exact {
                Planned::Ok { .. } => "the --exact output differs from upstream's".to_string(),
                Planned::Err(code) => format!("--exact fails with {code}"),
            };
            (
                "differs".into(),
                format!("{exact}; repairs: {}", repairs.join(" ")),
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

/// `text` without the `tile.move`s that write an iter arg back (`x_mv = pl.tile.move(x, …)`
/// where `x` is an iter arg), each use of such a copy named by its source again; with the
/// seed rules that insert them (S2 before a loop's yield, S1 in an if arm). `None` when there
/// is no such copy.
fn without_iter_arg_writebacks(text: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut iter_args = std::collections::BTreeSet::new();
    for line in &lines {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("for ")
            && let (Some(open), Some(close)) = (rest.find('('), rest.find(')'))
            && open < close
        {
            for arg in rest[open + 1..close].split(',') {
                iter_args.insert(arg.trim().to_string());
            }
        }
    }
    let mut renamed: Vec<(String, String)> = Vec::new();
    let mut rules = std::collections::BTreeSet::new();
    let mut kept = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let copy = t.split_once(": ").map(|(name, _)| name.to_string());
        let source = t
            .split_once("= pl.tile.move(")
            .and_then(|(_, rest)| rest.split_once(',').map(|(s, _)| s.to_string()));
        if let (Some(copy), Some(source)) = (copy, source)
            && iter_args.contains(&source)
            && copy.starts_with(&format!("{source}_mv"))
        {
            let indent = line.len() - t.len();
            let opener = lines[..k].iter().rev().find(|l| {
                let lt = l.trim_start();
                !lt.is_empty() && l.len() - lt.len() < indent
            });
            let in_loop = opener.is_some_and(|l| l.trim_start().starts_with("for "));
            rules.insert(if in_loop { "S2" } else { "S1" });
            renamed.push((copy, source));
            continue;
        }
        kept.push(line.to_string());
    }
    if renamed.is_empty() {
        return None;
    }
    let mut out = String::new();
    for line in kept {
        let mut line = line;
        for (copy, source) in &renamed {
            line = replace_word(&line, copy, source);
        }
        out.push_str(&line);
    }
    Some((out, rules.into_iter().collect::<Vec<_>>().join("+")))
}

fn replace_word(line: &str, word: &str, with: &str) -> String {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

#[test]
fn upstream_conformance() {
    let corpus = corpus();
    let cases = cases(&corpus.dir);
    assert!(!cases.is_empty(), "no cases in {}", corpus.dir.display());
    let seeds = seed_rules();
    let mut rows = Vec::new();
    let mut totals: BTreeMap<String, usize> = BTreeMap::new();
    for case in &cases {
        let (verdict, detail) = classify(&corpus.dir, case, &seeds);
        let kind = verdict.split(' ').next().unwrap_or("").to_string();
        let kind = match kind.as_str() {
            _ if verdict.contains("input hazard") => "input hazard".to_string(),
            "seed" => "seed rule".to_string(),
            "error" => "error as upstream".to_string(),
            _ => kind,
        };
        *totals.entry(kind).or_default() += 1;
        rows.push((case.name.clone(), case.backend.name(), verdict, detail));
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
        "\n| case | backend | verdict | detail |\n|---|---|---|---|"
    );
    for (name, backend, verdict, detail) in &rows {
        let _ = writeln!(report, "| {name} | {backend} | {verdict} | {detail} |");
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
        .filter(|r| r.2.starts_with("repaired") && !r.3.contains(memreuse::ir::codes::VALUE_LOST))
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
    use memreuse::repair::verify_options;
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
        let options = verify_options(&config);
        let (planned, reports) = plan_program_checked(&program, &config, &options)
            .unwrap_or_else(|(_, e)| panic!("{}: no offset plan: {e:?}", case.name));
        let hazards = reports
            .iter()
            .flat_map(|r| &r.diagnostics)
            .any(is_input_hazard);
        let violations = program_violations(&planned, &options);
        assert!(
            violations.is_empty() || hazards,
            "{}: the offset plan fails the checker: {violations:?}",
            case.name
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
