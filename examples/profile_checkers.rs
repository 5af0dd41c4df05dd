//! Min-of-n timings of planning and of each checker over the conformance corpus
//! (`../shared/conformance/generated`, the programs upstream accepts, each with its MANIFEST
//! backend), the same work as `benches/checkers.rs`. Each round times the three phases back to
//! back, so all see the same machine; on a shared machine the minimum over rounds is the
//! figure least disturbed by other load.
//!
//! The fourth phase is the user's default path, `repair::plan_checked`: plan, check with both
//! checkers, repair and re-check where they reject the plan. Its time is also split by what
//! became of each function (plan accepted as is, repaired, unrepaired, planner error): the
//! sums of each function's minimum over the rounds.
//!
//! `compare` sets the default path against the plan-and-check path (plan, then both checkers
//! on the plan: `plan_and_check` below) program by program: each round runs both on one
//! program back to back, each first every other round; per program the minimum of each over
//! the rounds, their ratio, the totals (also for the programs whose default plan carries
//! repairs, those whose plan carries none, those PyPTO cannot plan, whose plan-and-check
//! path is one failed planning, and those PyPTO plans by how many repairs their plans carry),
//! the unrepaired programs over 2x, the programs with the largest ratio, and those with the largest
//! excess of the default path over plan-and-check, where its time goes. Instruction counts of
//! both in one run (the release build, whose LTO inlines `plan_checked_editing`):
//! `valgrind --tool=callgrind --toggle-collect='memreuse_repair::plan_checked'
//! --toggle-collect='profile_checkers::plan_and_check' profile_checkers 1 compare`, then
//! `callgrind_annotate --inclusive=yes` gives each function's total.
//!
//! `cargo run --release --example profile_checkers -- [ROUNDS=15] [separate|default|all|compare]`
//! (the second argument picks the phases: the three separate ones, the default path, both,
//! or the comparison by program; `separate` keeps a callgrind run of the separate phases short).
//!
//! It allocates with jemalloc, as the `memreuse` binary does (`cli/src/main.rs`): the figures
//! are the product's. Planning and checking allocate many small nodes; glibc's allocator makes
//! one pass about 20 % slower.

use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use memreuse::backend::Backend;
use memreuse::ir::{Function, parse_program};
use memreuse::plan::{PlanConfig, PlanOptions, plan_function};
use memreuse::repair::{SafePlanError, is_repair, plan_checked};
use memreuse::verify::{PlanInput, VerifyOptions, check_liveness, check_plan, check_values};

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(15, |s| s.parse().expect("ROUNDS"));
    let phases = std::env::args().nth(2).unwrap_or_else(|| "all".into());
    let (separate, default) = match phases.as_str() {
        "separate" => (true, false),
        "default" => (false, true),
        "all" => (true, true),
        "compare" => (false, false),
        other => panic!("phases: separate, default, all or compare, not {other:?}"),
    };
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/conformance/generated"
    );
    let manifest = std::fs::read_to_string(format!("{dir}/MANIFEST.tsv"))
        .expect("../shared/conformance/generated/MANIFEST.tsv");
    let mut inputs: Vec<(Function, PlanConfig)> = Vec::new();
    // Each program's name and its functions' range in `inputs`.
    let mut programs: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    let mut tiles = 0usize;
    for row in manifest.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let [name, backend, _pre, outcome, _error, n_tiles, ..] = cols[..] else {
            continue;
        };
        if outcome != "ok" {
            continue;
        }
        let backend = match backend {
            "950" => Backend::Ascend950,
            "910b" => Backend::Ascend910B,
            _ => Backend::None,
        };
        let text = std::fs::read_to_string(format!("{dir}/{name}.input.py")).expect("input");
        let program = parse_program(&text).expect("corpus inputs parse");
        tiles += n_tiles.parse::<usize>().unwrap_or(0);
        let config = PlanConfig {
            backend,
            ..PlanConfig::default()
        };
        let first = inputs.len();
        inputs.extend(program.functions.into_iter().map(|f| (f, config)));
        programs.push((name.to_string(), first..inputs.len()));
    }
    if phases == "compare" {
        compare(&inputs, &programs, rounds, tiles);
        return;
    }
    let planned: Vec<(Function, VerifyOptions)> = inputs
        .iter()
        .filter_map(|(f, config)| {
            let options = VerifyOptions {
                backend: config.backend,
                ..VerifyOptions::default()
            };
            plan_function(f, config, &PlanOptions::default())
                .ok()
                .map(|p| (p.function, options))
        })
        .collect();
    let rejected = planned
        .iter()
        .filter(|(f, o)| !check_values(f, o).is_empty())
        .count();
    println!(
        "{} functions, {tiles} tiles; the value checker rejects {rejected} of the plans",
        planned.len()
    );
    let options_of = |config: &PlanConfig| VerifyOptions {
        backend: config.backend,
        ..VerifyOptions::default()
    };
    let mut times: [Vec<Duration>; 4] = Default::default();
    let mut findings = 0usize;
    const OUTCOMES: [&str; 4] = ["accepted", "repaired", "unrepaired", "planner error"];
    let mut fastest = vec![(Duration::MAX, 0usize); inputs.len()];
    for _ in 0..rounds {
        if default {
            let start = Instant::now();
            for ((f, config), fastest) in inputs.iter().zip(&mut fastest) {
                let function_start = Instant::now();
                let outcome = match plan_checked(f, config, &options_of(config)) {
                    Ok(plan) if plan.report.diagnostics.iter().any(is_repair) => 1,
                    Ok(_) => 0,
                    Err(SafePlanError::Unrepaired(_)) => 2,
                    Err(SafePlanError::Plan(_)) => 3,
                };
                *fastest = (fastest.0.min(function_start.elapsed()), outcome);
                findings += outcome;
            }
            times[3].push(start.elapsed());
        }
        if !separate {
            continue;
        }
        let start = Instant::now();
        for (f, config) in &inputs {
            findings += usize::from(plan_function(f, config, &PlanOptions::default()).is_ok());
        }
        times[0].push(start.elapsed());
        let start = Instant::now();
        for (f, options) in &planned {
            findings += check_liveness(f, options).len();
        }
        times[1].push(start.elapsed());
        let start = Instant::now();
        for (f, options) in &planned {
            findings += check_values(f, options).len();
        }
        times[2].push(start.elapsed());
    }
    let per_tile = |d: Duration| d.as_secs_f64() * 1e6 / tiles as f64;
    let mut total = Duration::ZERO;
    let [separate_phases @ .., default_path] = &mut times;
    for (phase, samples) in ["plan", "liveness checker", "value checker"]
        .iter()
        .zip(separate_phases)
        .filter(|_| separate)
    {
        samples.sort();
        let (min, median) = (samples[0], samples[samples.len() / 2]);
        total += min;
        println!(
            "{phase:>16}: min {min:.2?} ({:.3} µs/tile), median {median:.2?}",
            per_tile(min)
        );
    }
    if separate {
        println!(
            "{:>16}: {total:.2?} ({:.3} µs/tile)",
            "sum of minima",
            per_tile(total)
        );
    }
    if default {
        default_path.sort();
        let (min, median) = (default_path[0], default_path[default_path.len() / 2]);
        println!(
            "{:>16}: min {min:.2?} ({:.3} µs/tile), median {median:.2?}",
            "plan_checked",
            per_tile(min)
        );
        for (index, outcome) in OUTCOMES.iter().enumerate() {
            let of_outcome = fastest.iter().filter(|(_, o)| *o == index);
            let total: Duration = of_outcome.clone().map(|(d, _)| *d).sum();
            println!(
                "{:>16}  {outcome}: {} functions, {total:.2?}",
                "",
                of_outcome.count()
            );
        }
    }
    println!("[{findings}]");
}

/// The plan-and-check path of one function: PyPTO's plan, then both checkers on it.
#[inline(never)]
fn plan_and_check(f: &Function, config: &PlanConfig, options: &VerifyOptions) -> usize {
    let plan_input = PlanInput::of(f);
    match plan_function(f, config, &PlanOptions::default()) {
        Ok(plan) => check_plan(&plan_input, &plan.function, options).len(),
        Err(_) => 0,
    }
}

/// The default path against the plan-and-check path, program by program (module doc).
fn compare(
    inputs: &[(Function, PlanConfig)],
    programs: &[(String, std::ops::Range<usize>)],
    rounds: usize,
    tiles: usize,
) {
    let options_of = |config: &PlanConfig| VerifyOptions {
        backend: config.backend,
        ..VerifyOptions::default()
    };
    // Per program: the fastest default path and plan-and-check path seen.
    let mut fastest = vec![(Duration::MAX, Duration::MAX); programs.len()];
    // Per program: how many repairs its default plans carry.
    let mut repairs = vec![0usize; programs.len()];
    let mut sink = 0usize;
    for round in 0..rounds {
        let each = programs.iter().zip(&mut fastest).zip(&mut repairs);
        for (((_, functions), fastest), repairs) in each {
            let functions = &inputs[functions.clone()];
            // How many repairs the program's default plans carry (each a round of trials):
            // read as the path runs, so that a callgrind run counts each function's safe plan
            // once a round.
            let default_path = |sink: &mut usize, repairs: &mut usize| {
                let start = Instant::now();
                let mut made = 0;
                for (f, config) in functions {
                    let plan = plan_checked(f, config, &options_of(config));
                    *sink += usize::from(plan.is_ok());
                    made += plan.map_or(0, |p| {
                        p.report.diagnostics.iter().filter(|d| is_repair(d)).count()
                    });
                }
                *repairs = made;
                start.elapsed()
            };
            let checked_path = |sink: &mut usize| {
                let start = Instant::now();
                for (f, config) in functions {
                    *sink += plan_and_check(f, config, &options_of(config));
                }
                start.elapsed()
            };
            // Each path goes first every other round: the first finds the program's data
            // colder in the caches.
            let (default, checked) = if round % 2 == 0 {
                (default_path(&mut sink, repairs), checked_path(&mut sink))
            } else {
                let checked = checked_path(&mut sink);
                (default_path(&mut sink, repairs), checked)
            };
            fastest.0 = fastest.0.min(default);
            fastest.1 = fastest.1.min(checked);
        }
    }
    let default: Duration = fastest.iter().map(|t| t.0).sum();
    let checked: Duration = fastest.iter().map(|t| t.1).sum();
    let ratio = |(default, checked): (Duration, Duration)| {
        default.as_secs_f64() / checked.as_secs_f64().max(1e-9)
    };
    println!(
        "{} programs, {tiles} tiles, {rounds} rounds (per program the minimum of each path)",
        programs.len()
    );
    println!(
        "default path {default:.2?}, plan and check {checked:.2?}: {:.2}x",
        ratio((default, checked))
    );
    let mut by_ratio: Vec<usize> = (0..programs.len()).collect();
    by_ratio.sort_by(|&a, &b| ratio(fastest[b]).total_cmp(&ratio(fastest[a])));
    for limit in [1.25, 1.5, 2.0, 4.0] {
        let over = by_ratio
            .iter()
            .filter(|&&p| ratio(fastest[p]) > limit)
            .count();
        println!("  programs over {limit}x: {over}");
    }
    // Per program: whether PyPTO's own plan fails. Its plan-and-check path is then one failed
    // planning, which no safe plan can stay within 2x of.
    let pypto_fails: Vec<bool> = programs
        .iter()
        .map(|(_, functions)| {
            inputs[functions.clone()]
                .iter()
                .any(|(f, config)| plan_function(f, config, &PlanOptions::default()).is_err())
        })
        .collect();
    let class = |label: &str, of: &dyn Fn(usize) -> bool| {
        let members: Vec<usize> = (0..programs.len()).filter(|&p| of(p)).collect();
        let default: Duration = members.iter().map(|&p| fastest[p].0).sum();
        let checked: Duration = members.iter().map(|&p| fastest[p].1).sum();
        let over = members.iter().filter(|&&p| ratio(fastest[p]) > 2.0).count();
        println!(
            "  {label}: {} programs, {default:.2?} vs {checked:.2?} ({:.2}x), {over} over 2x",
            members.len(),
            ratio((default, checked))
        );
    };
    class("repaired", &|p| repairs[p] > 0);
    class("not repaired", &|p| repairs[p] == 0);
    // A plan with no repair costs its plan and check, unless a finding resisted every edit
    // (an input hazard, `MR-W004`): those programs by name.
    let slow_unrepaired = by_ratio
        .iter()
        .filter(|&&p| repairs[p] == 0 && ratio(fastest[p]) > 2.0)
        .map(|&p| format!("{} {:.2}x", programs[p].0, ratio(fastest[p])));
    println!(
        "    over 2x: {}",
        slow_unrepaired.collect::<Vec<_>>().join(", ")
    );
    class("PyPTO's plan fails", &|p| pypto_fails[p]);
    // Each repair is a round of trials, the one that separates its pair a whole plan and
    // check: the ratio grows with the repairs a program needs.
    for (label, needed) in [
        ("1", 1..2),
        ("2-4", 2..5),
        ("5-9", 5..10),
        ("10+", 10..usize::MAX),
    ] {
        let of = |p: usize| needed.contains(&repairs[p]) && !pypto_fails[p];
        class(&format!("PyPTO plans, {label} repairs"), &of);
    }
    println!("  the largest ratios:");
    for &p in by_ratio.iter().take(10) {
        let (default, checked) = fastest[p];
        println!(
            "    {:.2}x  {default:.2?} vs {checked:.2?}  {}",
            ratio(fastest[p]),
            programs[p].0
        );
    }
    // Where the default path's time over plan-and-check goes: a few large programs that are
    // repaired many times over carry much of it.
    let excess = |p: usize| fastest[p].0.saturating_sub(fastest[p].1);
    let mut by_excess: Vec<usize> = (0..programs.len()).collect();
    by_excess.sort_by_key(|&p| std::cmp::Reverse(excess(p)));
    let total_excess: Duration = by_excess.iter().map(|&p| excess(p)).sum();
    println!(
        "  the largest excesses (default path minus plan and check; {total_excess:.2?} in all):"
    );
    let mut so_far = Duration::ZERO;
    for &p in by_excess.iter().take(10) {
        so_far += excess(p);
        let (default, checked) = fastest[p];
        println!(
            "    {:.2?}  {default:.2?} vs {checked:.2?}  {}  ({:.0} % of the excess so far)",
            excess(p),
            programs[p].0,
            100.0 * so_far.as_secs_f64() / total_excess.as_secs_f64().max(1e-9)
        );
    }
    println!("[{sink}]");
}
