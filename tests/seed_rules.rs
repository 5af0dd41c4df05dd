//! One fixture per seed rule (rules §S), each a generated program the rule changes
//! (`tests/data/seed_rules/`, named after the rule; `MANIFEST.tsv` gives the backend and the
//! corpus case it was copied from): with the snapshot's rules, `--exact` prints exactly what
//! upstream's MemoryReuse printed (`NAME.upstream.py`); with the seed's rules (the default) it
//! prints something else, pinned in `NAME.seed.py` (`UPDATE_EXPECT=1` rewrites it).
//!
//! The same fixtures, and those of `tests/data/snapshot_rules/` (programs whose snapshot plan
//! the seed rules leave as upstream's, but whose safe plan needs them), are what the safe
//! planner under the snapshot's rules repairs by the seed's rules: each gets a plan both
//! checkers pass, pinned in `NAME.snapshot.py`.

use std::path::Path;

use memreuse::backend::Backend;
use memreuse::ir::{parse_program, print_program};
use memreuse::plan::{PlanConfig, Rules};
use memreuse::repair::plan_program_checked;
use memreuse::verify::VerifyOptions;
use memreuse_test_support::manifest_rows;

#[path = "support/input_hazards.rs"]
mod input_hazards;
use input_hazards::safe_plan;

/// `--exact` output of `input` on `backend` under `rules`.
fn exact(input: &str, backend: Backend, rules: Rules) -> String {
    let program = parse_program(input).expect("the fixture parses");
    let config = PlanConfig {
        backend,
        exact: true,
        rules,
        ..PlanConfig::default()
    };
    let options = VerifyOptions {
        backend,
        ..VerifyOptions::default()
    };
    match plan_program_checked(&program, &config, &options) {
        Ok((planned, _)) => print_program(&planned),
        Err((function, err)) => panic!("{function} has no plan: {err:?}"),
    }
}

#[test]
fn each_seed_rule_changes_its_fixture_and_the_snapshot_rules_give_upstreams_output() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seed_rules");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("the manifest");
    let mut checked = 0;
    let mut stale = Vec::new();
    for line in manifest.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, backend, _case] = fields[..] else {
            panic!("MANIFEST.tsv: a line of three fields expected, got {line:?}");
        };
        let backend = Backend::from_name(backend).expect("a backend");
        let read = |ext: &str| {
            std::fs::read_to_string(dir.join(format!("{name}.{ext}")))
                .unwrap_or_else(|err| panic!("{name}.{ext}: {err}"))
        };
        let input = read("input.py");
        let upstream = read("upstream.py");
        assert_eq!(
            exact(&input, backend, Rules::Snapshot),
            upstream,
            "{name}: with the snapshot's rules, --exact is upstream's output"
        );
        let seed = exact(&input, backend, Rules::Seed);
        assert_ne!(seed, upstream, "{name}: the seed rule changes this program");
        let pinned = dir.join(format!("{name}.seed.py"));
        if std::fs::read_to_string(&pinned).ok().as_deref() != Some(seed.as_str()) {
            if std::env::var_os("UPDATE_EXPECT").is_some() {
                std::fs::write(&pinned, &seed).expect("the pinned output is writable");
            } else {
                stale.push(name.to_string());
            }
        }
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} fixtures");
    assert!(
        stale.is_empty(),
        "the seed's --exact output changed for {stale:?} (UPDATE_EXPECT=1 rewrites NAME.seed.py; review the diff)"
    );
}

/// The rows `(name, backend)` of `dir`'s `MANIFEST.tsv`.
fn manifest(dir: &Path) -> Vec<(String, Backend)> {
    manifest_rows(dir)
        .iter()
        .map(|row| (row.cell("name").to_string(), row.backend()))
        .collect()
}

#[test]
fn the_safe_planner_under_the_snapshot_rules_plans_each_fixture_safely() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut checked = 0;
    let mut stale = Vec::new();
    for dir in [data.join("seed_rules"), data.join("snapshot_rules")] {
        for (name, backend) in manifest(&dir) {
            let input = std::fs::read_to_string(dir.join(format!("{name}.input.py")))
                .unwrap_or_else(|err| panic!("{name}.input.py: {err}"));
            let program = parse_program(&input).expect("the fixture parses");
            let config = PlanConfig {
                backend,
                rules: Rules::Snapshot,
                ..PlanConfig::default()
            };
            let (planned, _) = safe_plan(&format!("{name} (snapshot rules)"), &program, &config);
            let text = print_program(&planned);
            let pinned = dir.join(format!("{name}.snapshot.py"));
            if std::fs::read_to_string(&pinned).ok().as_deref() != Some(text.as_str()) {
                if std::env::var_os("UPDATE_EXPECT").is_some() {
                    std::fs::write(&pinned, &text).expect("the pinned output is writable");
                } else {
                    stale.push(name);
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 7, "only {checked} fixtures");
    assert!(
        stale.is_empty(),
        "the safe plan under the snapshot rules changed for {stale:?} (UPDATE_EXPECT=1 rewrites NAME.snapshot.py; review the diff)"
    );
}
