//! End-to-end tests of the `memreuse` binary, each in a fresh temporary directory.

use memreuse_test_support::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the binary in `dir` with a fresh, empty state dir (so every run is cold and nothing
/// is written outside temporary directories).
fn memreuse(args: &[&str], dir: &Path) -> Output {
    let state = tempfile::tempdir().expect("temp dir");
    Command::new(env!("CARGO_BIN_EXE_memreuse"))
        .args(args)
        .current_dir(dir)
        .env("MEMREUSE_STATE_DIR", state.path())
        .env_remove("COLUMNS")
        .output()
        .expect("the binary runs")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ sits in the workspace")
        .to_path_buf()
}

/// Every file below `dir`, relative to `dir`, sorted.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(dir).expect("below dir").to_path_buf());
            }
        }
    }
    found.sort();
    found
}

/// Every `*.py` below `dir` that holds a program, relative to `dir`.
fn programs(dir: &Path) -> Vec<PathBuf> {
    files_below(dir)
        .into_iter()
        .filter(|path| {
            path.extension().is_some_and(|e| e == "py")
                && !path.to_string_lossy().ends_with(".out.py")
                && std::fs::read_to_string(dir.join(path))
                    .is_ok_and(|t| t.contains("\n@pl.program"))
        })
        .collect()
}

/// `-v` logs memreuse's own work without colours in a pipe (nor with `--color never`), and
/// none of the engine's internals (salsa's queries); `-vvv` shows those.
#[test]
fn verbose_logs_are_plain_in_pipes_and_leave_out_engine_internals() {
    let kernel = repo().join("examples/kernels/flash_attention/31_after_InitMemRef.py");
    let kernel = kernel.to_str().expect("utf-8 path");
    let dir = tempfile::tempdir().expect("temp dir");
    for color in ["auto", "never"] {
        let run = memreuse(&["plan", kernel, "-v", "--color", color], dir.path());
        assert!(run.status.success(), "{}", text(&run.stderr));
        let log = text(&run.stderr);
        assert!(!log.contains('\u{1b}'), "colour codes in a pipe:\n{log}");
        assert!(!log.contains("salsa"), "engine internals at -v:\n{log}");
    }
    let run = memreuse(&["plan", kernel, "-vvv", "--color", "never"], dir.path());
    assert!(text(&run.stderr).contains("salsa"), "{}", text(&run.stderr));
}

/// PyPTO's dumps of a program compiled for a device, planned without a backend, get one hint
/// that a backend matters; with one (or for hand-written kernels) nothing is said.
#[test]
fn real_dumps_planned_without_a_backend_get_a_hint() {
    let dumps = repo().join("tests/data/real/examples.beginner.hello_world._jit_hello_world");
    let dumps = dumps.to_str().expect("utf-8 path");
    let dir = tempfile::tempdir().expect("temp dir");
    let hint = "hint: planning PyPTO's dumps without a backend";
    let without = memreuse(&["plan", dumps, "--no-cache"], dir.path());
    assert!(without.status.success(), "{}", text(&without.stderr));
    assert_eq!(
        text(&without.stderr).matches(hint).count(),
        1,
        "{}",
        text(&without.stderr)
    );
    let with = memreuse(
        &["plan", dumps, "--backend", "910b", "--no-cache"],
        dir.path(),
    );
    assert!(!text(&with.stderr).contains(hint), "{}", text(&with.stderr));
    let kernels = repo().join("examples/kernels");
    let kernels = memreuse(&["plan", kernels.to_str().expect("utf-8 path")], dir.path());
    assert!(
        !text(&kernels.stderr).contains(hint),
        "{}",
        text(&kernels.stderr)
    );
}

/// A warm run serves every planned function from the cache, whatever its plan reports
/// (repairs of every class, the input's own hazards, notes, hints): a report code the store
/// cannot write back made its plans misses for good. (Functions with no plan are planned
/// again: errors are not stored yet.)
#[test]
fn a_warm_run_serves_every_planned_function_from_the_cache() {
    let tree = tempfile::tempdir().expect("temp dir");
    for data in [
        "tests/data/repair",
        "tests/data/kept",
        "tests/data/plan",
        "examples/kernels",
    ] {
        let from = repo().join(data);
        for file in files_below(&from) {
            if file.extension().is_some_and(|e| e == "py") {
                let to = tree.path().join(data).join(&file);
                std::fs::create_dir_all(to.parent().expect("a parent")).expect("mkdir");
                std::fs::copy(from.join(&file), &to).expect("copy");
            }
        }
    }
    let state = tempfile::tempdir().expect("temp dir");
    let state = state.path().to_str().expect("utf-8 path");
    let plan = || {
        let args = [
            "plan",
            ".",
            "--emit",
            "json",
            "--state-dir",
            state,
            "--jobs",
            "1",
        ];
        let run = memreuse(&args, tree.path());
        serde_json::from_slice::<serde_json::Value>(&run.stdout).expect("JSON")
    };
    let cold = plan();
    let warm = plan();
    let functions = |doc: &serde_json::Value| -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for file in doc["files"].as_array().expect("files") {
            for f in file["functions"].as_array().into_iter().flatten() {
                if f["status"] == "failed" {
                    continue;
                }
                let name = format!("{}::{}", file["path"], f["name"]);
                out.push((name, f["cached"] == true));
            }
        }
        out
    };
    let (cold, warm) = (functions(&cold), functions(&warm));
    assert!(warm.len() > 300, "{}", warm.len());
    assert_eq!(cold.len(), warm.len());
    let missed: Vec<&String> = warm
        .iter()
        .filter(|(_, hit)| !hit)
        .map(|(n, _)| n)
        .collect();
    assert!(missed.is_empty(), "planned again when warm: {missed:?}");
}

/// The summary folds a function's performance hints into one line (`-v` lists them) and its
/// footer counts them.
#[test]
fn the_summary_folds_performance_hints_unless_verbose() {
    let dumps = repo()
        .join("tests/data/real/deepseek_v4_flash_dspark.decode_o_proj._jit_decode_o_proj_test");
    let dumps = dumps.to_str().expect("utf-8 path");
    let dir = tempfile::tempdir().expect("temp dir");
    let args = ["plan", dumps, "--backend", "910b", "--no-cache"];
    let folded = text(&memreuse(&args, dir.path()).stdout);
    assert!(!folded.contains("hint[PH-MR-001]"), "{folded}");
    assert!(folded.contains("(PH-MR-…; `-v` lists them)"), "{folded}");
    let footer: String = folded.lines().rev().take(2).collect::<Vec<_>>().join(" ");
    assert!(footer.contains("performance hints (PH-MR-…)"), "{folded}");
    let listed = text(&memreuse(&[&args[..], &["-v"]].concat(), dir.path()).stdout);
    assert!(listed.contains("hint[PH-MR-001]"), "{listed}");
    assert!(!listed.contains("`-v` lists them"), "{listed}");
}

/// `-q` shows only the functions with a problem (here the repaired ones) and the totals, which
/// still count every function.
#[test]
fn quiet_summaries_show_only_problems_and_the_totals() {
    let tree = tempfile::tempdir().expect("temp dir");
    for file in [
        "examples/kernels/rms_norm/31_after_InitMemRef.py",
        "tests/data/repair/r002_loop_carry_gets_own_buffer.py",
    ] {
        let to = tree
            .path()
            .join(Path::new(file).file_name().expect("a name"));
        std::fs::copy(repo().join(file), to).expect("copy");
    }
    let quiet = memreuse(&["plan", ".", "-q"], tree.path());
    let shown = text(&quiet.stdout);
    assert!(!shown.contains("31_after_InitMemRef.py"), "{shown}");
    assert!(
        shown.contains("r002_loop_carry_gets_own_buffer.py"),
        "{shown}"
    );
    assert!(shown.contains("warning[MR-R002]"), "{shown}");
    let normal = text(&memreuse(&["plan", "."], tree.path()).stdout);
    assert!(normal.contains("31_after_InitMemRef.py"), "{normal}");
    let last = |s: &str| s.lines().last().map(str::to_string);
    assert_eq!(last(&shown), last(&normal), "the totals differ");
    assert!(shown.lines().count() < normal.lines().count());
}

#[test]
fn canonical_inputs_round_trip_byte_for_byte_through_the_binary() {
    for tree in ["examples/kernels", "tests/data/roundtrip"] {
        let input = repo().join(tree);
        let out = tempfile::tempdir().expect("temp dir");
        let result = memreuse(
            &[
                "plan",
                input.to_str().expect("utf-8 path"),
                "--planner",
                "none",
                "--emit",
                "ir",
                "--out",
                out.path().to_str().expect("utf-8 path"),
            ],
            out.path(),
        );
        assert!(result.status.success(), "{tree}: {}", text(&result.stderr));
        let files = programs(&input);
        assert!(!files.is_empty());
        for file in files {
            let original = std::fs::read_to_string(input.join(&file)).expect("input");
            let printed = std::fs::read_to_string(out.path().join(&file))
                .unwrap_or_else(|_| panic!("{} was not written", file.display()));
            assert!(original == printed, "{tree}/{} changed", file.display());
        }
    }
}

#[test]
fn planner_fixture_outputs_round_trip() {
    let dir = repo().join("tests/data/plan");
    let out = tempfile::tempdir().expect("temp dir");
    for entry in std::fs::read_dir(&dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        if !path.to_string_lossy().ends_with(".out.py") {
            continue;
        }
        let original = std::fs::read_to_string(&path).expect("snapshot");
        if !original.contains("\n@pl.program") {
            continue;
        }
        let result = memreuse(
            &[
                "plan",
                path.to_str().expect("utf-8"),
                "--planner",
                "none",
                "--emit",
                "ir",
            ],
            out.path(),
        );
        assert!(result.status.success(), "{}", text(&result.stderr));
        assert!(
            text(&result.stdout) == original,
            "{} changed",
            path.display()
        );
    }
}

/// In a pipe the summary fits 80 columns: every function's name on a line of its own above
/// its rows. `COLUMNS` widens it, and names share their rows where they fit.
#[test]
fn summary_of_the_bundled_kernels() {
    let result = memreuse(&["plan", "examples/kernels"], &repo());
    assert!(result.status.success(), "{}", text(&result.stderr));
    let stdout = text(&result.stdout);
    assert!(stdout.contains("LOWER BOUND"));
    assert!(stdout.contains("softmax_rows/31_after_InitMemRef.py\n  softmax_rows\n   Vec "));
    assert!(stdout.lines().all(|l| l.chars().count() <= 80), "{stdout}");
    let wide = Command::new(env!("CARGO_BIN_EXE_memreuse"))
        .args(["plan", "examples/kernels", "--no-cache"])
        .current_dir(repo())
        .env("COLUMNS", "120")
        .output()
        .expect("the binary runs");
    let wide = text(&wide.stdout);
    assert!(wide.contains("softmax_rows/31_after_InitMemRef.py\n  softmax_rows "));
    assert!(wide.lines().all(|l| l.chars().count() <= 120), "{wide}");
    assert!(wide.lines().any(|l| l.chars().count() > 80), "{wide}");
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|l| l.ends_with("functions"))
    );
}

#[test]
fn every_planned_kernel_passes_verify() {
    let out = tempfile::tempdir().expect("temp dir");
    let input = repo().join("examples/kernels");
    for backend in ["none", "910b", "950"] {
        let planned = out.path().join(backend);
        let result = memreuse(
            &[
                "plan",
                input.to_str().expect("utf-8"),
                "--backend",
                backend,
                "--emit",
                "ir",
                "--out",
                planned.to_str().expect("utf-8"),
            ],
            out.path(),
        );
        assert!(
            result.status.success(),
            "{backend}: {}",
            text(&result.stderr)
        );
        let verified = memreuse(
            &[
                "verify",
                planned.to_str().expect("utf-8"),
                "--backend",
                backend,
            ],
            out.path(),
        );
        assert!(
            verified.status.success(),
            "{backend}: {}",
            text(&verified.stderr)
        );
    }
}

#[test]
fn json_plan_has_schema_and_is_deterministic() {
    let args = ["plan", "examples/kernels/matmul_kloop", "--emit", "json"];
    let first = memreuse(&args, &repo());
    let second = memreuse(&args, &repo());
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert_eq!(first.stdout, second.stdout);
    let json = text(&first.stdout);
    assert!(json.starts_with("{\n  \"schema\": 4,"), "{json}");
    for field in [
        "\"spaces\"",
        "\"lower_bound\"",
        "\"removed_allocs\"",
        "\"repairs\"",
        "\"digest\"",
    ] {
        assert!(json.contains(field), "missing {field}");
    }
    // `--json` is `--emit json`, as the other commands spell it; both at once are refused.
    let short = memreuse(
        &["plan", "examples/kernels/matmul_kloop", "--json"],
        &repo(),
    );
    assert!(short.status.success(), "{}", text(&short.stderr));
    assert_eq!(short.stdout, first.stdout);
    let both = memreuse(
        &args.iter().copied().chain(["--json"]).collect::<Vec<_>>(),
        &repo(),
    );
    assert_eq!(both.status.code(), Some(2), "{}", text(&both.stderr));
}

/// How many stored JSON entries a run logged (`MEMREUSE_LOG=info`) as copied, not printed.
fn entries_copied(log: &str) -> Option<usize> {
    log.split_once("copied=")
        .and_then(|(_, after)| after.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
}

/// The binary in the repository with the state dir `state`, logging what it copies
/// ([`entries_copied`]).
fn logged_in_repo(args: &[&str], state: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_memreuse"));
    command
        .args(args)
        .current_dir(repo())
        .env("MEMREUSE_STATE_DIR", state)
        .env("MEMREUSE_LOG", "info");
    command
}

/// Runs the binary in `dir` with the given state dir (kept between runs).
fn memreuse_with_state(args: &[&str], dir: &Path, state: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memreuse"))
        .args(args)
        .current_dir(dir)
        .env("MEMREUSE_STATE_DIR", state)
        .output()
        .expect("the binary runs")
}

#[test]
fn manifest_served_runs_print_what_cold_runs_print() {
    // A summary run stores file manifests, which keep only what a summary prints; JSON and
    // SVG output served from them must still carry every buffer and lifetime.
    let state = tempfile::tempdir().expect("temp dir");
    let kernels = ["plan", "examples/kernels"];
    let summary = memreuse_with_state(&kernels, &repo(), state.path());
    assert!(summary.status.success(), "{}", text(&summary.stderr));
    let warm_summary = memreuse_with_state(&kernels, &repo(), state.path());
    assert_eq!(text(&warm_summary.stdout), text(&summary.stdout));

    let json = ["plan", "examples/kernels", "--emit", "json", "--lifetimes"];
    let warm = memreuse_with_state(&json, &repo(), state.path());
    let cold = memreuse(&json, &repo());
    assert!(warm.status.success(), "{}", text(&warm.stderr));
    let warm = text(&warm.stdout);
    assert!(
        warm.contains("\"cached\": true"),
        "the JSON run was not served from the cache"
    );
    let warm = warm.replace("\"cached\": true", "\"cached\": false");
    assert_eq!(warm, text(&cold.stdout));

    let svg_dirs = [
        tempfile::tempdir().expect("temp dir"),
        tempfile::tempdir().expect("temp dir"),
    ];
    let svg_args = |out: &Path| {
        let mut args: Vec<String> = ["plan", "examples/kernels", "--emit", "svg", "--out"]
            .map(String::from)
            .to_vec();
        args.push(out.display().to_string());
        args
    };
    let (warm_args, cold_args) = (svg_args(svg_dirs[0].path()), svg_args(svg_dirs[1].path()));
    let warm_args: Vec<&str> = warm_args.iter().map(String::as_str).collect();
    let cold_args: Vec<&str> = cold_args.iter().map(String::as_str).collect();
    let warm_run = memreuse_with_state(&warm_args, &repo(), state.path());
    assert!(warm_run.status.success(), "{}", text(&warm_run.stderr));
    assert!(memreuse(&cold_args, &repo()).status.success());
    let read_all = |dir: &Path| -> Vec<(PathBuf, String)> {
        files_below(dir)
            .into_iter()
            .map(|path| {
                let content = std::fs::read_to_string(dir.join(&path)).expect("svg text");
                (path, content)
            })
            .collect()
    };
    let (warm_svgs, cold_svgs) = (read_all(svg_dirs[0].path()), read_all(svg_dirs[1].path()));
    assert!(!cold_svgs.is_empty());
    assert_eq!(warm_svgs, cold_svgs);
}

/// Every part of a report comes back from the store: a repair's related places (where the
/// lost value is defined, written over and read) too, in a warm document as in the cold one,
/// printed from stored detail or copied from a stored entry.
#[test]
fn warm_json_is_the_cold_document_with_repairs_related_places() {
    let inputs = tempfile::tempdir().expect("temp dir");
    let fixtures = repo().join("tests/data/repair");
    for entry in std::fs::read_dir(&fixtures).expect("fixtures").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".py") && !name.ends_with(".out.py") {
            std::fs::copy(entry.path(), inputs.path().join(&name)).expect("copied");
        }
    }
    let dir = inputs.path().display().to_string();
    let json = ["plan", dir.as_str(), "--emit", "json"];
    let (cold_state, state) = (
        tempfile::tempdir().expect("temp dir"),
        tempfile::tempdir().expect("temp dir"),
    );
    let cold = text(&memreuse_with_state(&json, &repo(), cold_state.path()).stdout);
    assert!(
        cold.contains("\"related\""),
        "the fixtures' repairs have related places"
    );
    memreuse_with_state(&["plan", dir.as_str()], &repo(), state.path());
    for round in ["printed", "copied"] {
        let warm = text(&memreuse_with_state(&json, &repo(), state.path()).stdout);
        assert!(warm.contains("\"cached\": true"), "{round}: not served");
        assert_eq!(
            warm.replace("\"cached\": true", "\"cached\": false"),
            cold,
            "{round}"
        );
    }
}

/// JSON written straight to a file while the run holds the store (no reader can hold a file
/// up) is the document a pipe gets through the spool, cold and warm; the first warm run
/// stores the entries of the files the store served, and the next copies them, to the byte.
#[test]
fn json_into_a_file_is_the_document_a_pipe_gets() {
    // Each way its own store, so that both runs of a round are cold or both warm.
    let (state, piped_state) = (
        tempfile::tempdir().expect("temp dir"),
        tempfile::tempdir().expect("temp dir"),
    );
    let out = tempfile::tempdir().expect("temp dir");
    let json = ["plan", "examples/kernels", "--emit", "json"];
    let mut documents = Vec::new();
    for round in ["cold", "warm", "copied"] {
        let path = out.path().join(format!("{round}.json"));
        let file = std::fs::File::create(&path).expect("created");
        let into_file = logged_in_repo(&json, state.path())
            .stdout(file)
            .output()
            .expect("the binary runs");
        assert!(into_file.status.success(), "{}", text(&into_file.stderr));
        let log = text(&into_file.stderr);
        let copied = entries_copied(&log);
        match round {
            "copied" => assert!(copied.is_some_and(|n| n > 0), "{round}: {log}"),
            _ => assert_eq!(copied, Some(0), "{round}: {log}"),
        }
        let piped = memreuse_with_state(&json, &repo(), piped_state.path());
        let written = std::fs::read_to_string(&path).expect("written");
        assert!(written.contains("\"schema\""), "{round}: {written}");
        assert_eq!(written, text(&piped.stdout), "{round}");
        documents.push(written);
    }
    assert_eq!(
        documents[1], documents[2],
        "the copied entries are the printed ones"
    );
}

/// `--emit json` leaves out each function's `lifetimes` and `--lifetimes` adds them, nothing
/// else. Either document is the cold one when warm: printed from the detail a warm run reads
/// (or makes), then copied from the entries that run stored, both kinds in one store.
/// `--lifetimes` is refused beside any other output, and `--no-lifetimes` with a hint.
#[test]
fn json_lifetimes_are_opt_in_and_warm_documents_are_the_cold_ones() {
    let parsed = |output: &Output| -> serde_json::Value {
        assert!(output.status.success(), "{}", text(&output.stderr));
        serde_json::from_slice(&output.stdout).expect("JSON")
    };
    let json = ["plan", "examples/kernels", "--emit", "json"];
    let with = [&json[..], &["--lifetimes"]].concat();
    let (cold, cold_with) = (memreuse(&json, &repo()), memreuse(&with, &repo()));
    let mut stripped = parsed(&cold_with);
    let mut shown = 0;
    for file in stripped["files"].as_array_mut().expect("files") {
        for function in file["functions"].as_array_mut().expect("functions") {
            if let Some(function) = function.as_object_mut() {
                shown += usize::from(function.remove("lifetimes").is_some());
            }
        }
    }
    assert!(shown > 0, "--lifetimes shows lifetimes");
    assert_eq!(parsed(&cold), stripped);

    let state = tempfile::tempdir().expect("temp dir");
    let summary = memreuse_with_state(&["plan", "examples/kernels"], &repo(), state.path());
    assert!(summary.status.success(), "{}", text(&summary.stderr));
    for round in ["printed", "copied"] {
        for (args, cold) in [(&json[..], &cold), (&with[..], &cold_with)] {
            let warm = logged_in_repo(args, state.path())
                .output()
                .expect("the binary runs");
            let log = text(&warm.stderr);
            assert!(warm.status.success(), "{log}");
            let copied = entries_copied(&log);
            match round {
                "copied" => assert!(copied.is_some_and(|n| n > 0), "{args:?}: {log}"),
                _ => assert_eq!(copied, Some(0), "{round} {args:?}: {log}"),
            }
            let warm = text(&warm.stdout);
            assert!(!warm.contains("\"cached\": false"), "{round} {args:?}");
            let warm = warm.replace("\"cached\": true", "\"cached\": false");
            assert_eq!(warm, text(&cold.stdout), "{round} {args:?}");
        }
    }

    let refused = memreuse(&["plan", "examples/kernels", "--lifetimes"], &repo());
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    let gone = memreuse(&[&json[..], &["--no-lifetimes"]].concat(), &repo());
    assert_eq!(gone.status.code(), Some(2));
    assert!(
        text(&gone.stderr).contains("pass --lifetimes to include them"),
        "{}",
        text(&gone.stderr)
    );
}

#[test]
fn a_query_served_from_a_manifest_is_complete() {
    let state = tempfile::tempdir().expect("temp dir");
    let file = "examples/kernels/matmul_kloop/31_after_InitMemRef.py";
    let query = ["query", "--no-daemon", file, "--json"];
    let cold = memreuse(&query, &repo());
    assert!(cold.status.success(), "{}", text(&cold.stderr));
    let summary = memreuse_with_state(&["plan", file], &repo(), state.path());
    assert!(summary.status.success(), "{}", text(&summary.stderr));
    let warm = memreuse_with_state(&query, &repo(), state.path());
    assert!(warm.status.success(), "{}", text(&warm.stderr));
    let warm = text(&warm.stdout);
    assert!(warm.contains("\"cached\": true"), "{warm}");
    assert_eq!(
        warm.replace("\"cached\": true", "\"cached\": false"),
        text(&cold.stdout)
    );
}

#[test]
fn query_prints_the_table_plan_prints() {
    let file = "examples/kernels/elementwise_chain/31_after_InitMemRef.py";
    let plan = memreuse(&["plan", file], &repo());
    let query = memreuse(&["query", "--no-daemon", file], &repo());
    assert!(query.status.success(), "{}", text(&query.stderr));
    let plan = text(&plan.stdout);
    let table = plan
        .split_once("BUFFERS and BYTES:")
        .map_or("", |(rows, _)| rows);
    assert!(table.contains("bias_gelu"), "{plan}");
    assert_eq!(text(&query.stdout), table);
}

#[test]
fn bad_input_is_located_and_exits_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = repo().join("tests/data/errors/unknown_dtype.py");
    std::fs::copy(source, dir.path().join("bad.py")).expect("copy");
    let result = memreuse(&["plan", "bad.py"], dir.path());
    assert_eq!(result.status.code(), Some(1));
    let stderr = text(&result.stderr);
    assert!(stderr.contains("bad.py:9:30"), "{stderr}");
    assert!(stderr.contains("E002"), "{stderr}");
}

#[test]
fn directories_skip_non_programs_and_ignored_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let kernel = repo().join("examples/kernels/elementwise_chain/31_after_InitMemRef.py");
    std::fs::create_dir_all(dir.path().join("tree/sub")).expect("mkdir");
    std::fs::create_dir_all(dir.path().join("tree/.git")).expect("mkdir");
    std::fs::copy(&kernel, dir.path().join("tree/sub/k.py")).expect("copy");
    std::fs::copy(&kernel, dir.path().join("tree/ignored.py")).expect("copy");
    std::fs::write(dir.path().join("tree/.gitignore"), "ignored.py\n").expect("write");
    std::fs::write(dir.path().join("tree/helper.py"), "import os\n").expect("write");
    let result = memreuse(&["plan", "tree"], dir.path());
    assert!(result.status.success(), "{}", text(&result.stderr));
    let stdout = text(&result.stdout);
    assert!(stdout.contains("k.py\n"), "{stdout}");
    assert!(!stdout.contains("ignored.py"), "{stdout}");
    assert!(stdout.contains("1 file,"), "{stdout}");
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    assert_eq!(memreuse(&["plan"], dir.path()).status.code(), Some(2));
    assert_eq!(
        memreuse(&["plan", ".", "--backend", "h100"], dir.path())
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn explain_names_the_gate() {
    let result = memreuse(
        &[
            "explain",
            "tests/data/plan/s11_023_test_inplace_unsafe_op_no_producer_consumer_reuse.py::main",
            "tile_a",
            "tile_b",
        ],
        &repo(),
    );
    assert!(result.status.success(), "{}", text(&result.stderr));
    let stdout = text(&result.stdout);
    assert!(stdout.contains("no-alias gate"), "{stdout}");
}

/// `--planner dsa` plans go through the same check and repair as PyPTO's: on the repair
/// fixtures (their backends) every function gets a plan, with the repairs and input hazards as
/// warnings, and nothing says "no plan".
#[test]
fn offset_planner_plans_are_repaired() {
    let dir = repo().join("tests/data/repair");
    let fixtures = programs(&dir);
    assert!(fixtures.len() > 10, "the repair fixtures are missing");
    let mut warned = 0;
    for backend in ["none", "950"] {
        let of_backend: Vec<String> = fixtures
            .iter()
            .filter(|p| {
                std::fs::read_to_string(dir.join(p))
                    .is_ok_and(|t| t.contains(&format!("backend={backend} step0=off")))
            })
            .map(|p| format!("tests/data/repair/{}", p.display()))
            .collect();
        let mut args = vec![
            "plan",
            "--no-cache",
            "--planner",
            "dsa",
            "--backend",
            backend,
        ];
        args.extend(of_backend.iter().map(String::as_str));
        let result = memreuse(&args, &repo());
        let stdout = text(&result.stdout);
        assert!(
            result.status.success(),
            "{backend}: {}\n{stdout}",
            text(&result.stderr)
        );
        warned += stdout.matches("warning[MR-").count();
    }
    assert!(warned >= 10, "only {warned} repairs and input hazards");
}

#[test]
fn offset_planner_never_needs_more_than_pypto_and_verifies() {
    for backend in ["none", "910b", "950"] {
        let result = memreuse(
            &[
                "plan",
                "examples/kernels",
                "--planner",
                "dsa",
                "--emit",
                "json",
                "--backend",
                backend,
            ],
            &repo(),
        );
        assert!(
            result.status.success(),
            "{backend}: {}",
            text(&result.stderr)
        );
        let json: serde_json::Value =
            serde_json::from_slice(&result.stdout).expect("the plan is JSON");
        let mut spaces = 0;
        for file in json["files"].as_array().expect("files") {
            for function in file["functions"].as_array().expect("functions") {
                for space in function["spaces"].as_array().expect("spaces") {
                    let footprint = space["footprint"].as_i64().expect("footprint");
                    let pypto = space["pypto_footprint"].as_i64().expect("pypto footprint");
                    assert!(footprint <= pypto, "{backend}: {space}");
                    spaces += 1;
                }
            }
        }
        assert!(spaces > 20, "{backend}: only {spaces} spaces");
    }
}

/// `FILE::FUNCTION` names one function wherever a file is taken: `plan` shows that function
/// alone, `verify` checks it alone; a function the file lacks is an error (1), and a function
/// of a directory, or one with `--emit ir`, a usage error (2).
#[test]
fn a_named_function_is_planned_and_verified_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let kernel = repo().join("examples/kernels/orchestrated_kernels/31_after_InitMemRef.py");
    std::fs::copy(&kernel, dir.path().join("k.py")).expect("copy");
    let planned = memreuse(&["plan", "k.py", "--emit", "ir"], dir.path());
    assert!(planned.status.success(), "{}", text(&planned.stderr));
    std::fs::write(dir.path().join("planned.py"), &planned.stdout).expect("write");
    // (arguments, exit code, in stdout or stderr, not in stdout)
    let cases: [(&[&str], i32, &str, &str); 7] = [
        (
            &["plan", "k.py::add_kernel"],
            0,
            "1 file, 1 function",
            "scale_kernel",
        ),
        (
            &["plan", "k.py::add_kernel", "--json"],
            0,
            "\"name\": \"add_kernel\"",
            "scale_kernel",
        ),
        (
            &["plan", "k.py::nope"],
            1,
            "no function 'nope' in k.py (it has: add_kernel",
            "",
        ),
        (
            &["plan", "k.py::add_kernel", "--emit", "ir"],
            2,
            "--emit ir prints whole programs",
            "",
        ),
        (&["plan", ".::add_kernel"], 2, "is a directory", ""),
        (
            &["verify", "planned.py::scale_kernel"],
            0,
            "(1 file checked)",
            "",
        ),
        (
            &["verify", "planned.py::nope"],
            1,
            "no function 'nope' in planned.py",
            "",
        ),
    ];
    for (args, code, shown, absent) in cases {
        let result = memreuse(args, dir.path());
        let (stdout, stderr) = (text(&result.stdout), text(&result.stderr));
        assert_eq!(result.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(
            stdout.contains(shown) || stderr.contains(shown),
            "{args:?}: {stdout}{stderr}"
        );
        assert!(
            absent.is_empty() || !stdout.contains(absent),
            "{args:?}: {stdout}"
        );
    }
}

/// A tree with a function PyPTO plans unsafely (`repaired.py`, repaired) and a function that
/// gets no plan (`refused.py`); the caller adds what else it needs.
fn findings_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (from, to) in [
        (
            "tests/data/repair/r001_packed_tile_keeps_own_buffer.py",
            "repaired.py",
        ),
        ("tests/data/cli/one_refused_function.py", "refused.py"),
    ] {
        std::fs::copy(repo().join(from), dir.path().join(to)).expect("copy");
    }
    dir
}

/// `--only` shows the functions and files with findings of its kinds, and only those findings
/// under them; the totals still count everything, and the exit code is the run's.
#[test]
fn only_shows_what_needs_attention() {
    let dir = findings_tree();
    let clean = repo().join("examples/kernels/rms_norm/31_after_InitMemRef.py");
    std::fs::copy(clean, dir.path().join("clean.py")).expect("copy");
    std::fs::write(
        dir.path().join("bad.py"),
        "@pl.program\nclass X:\n  def (\n",
    )
    .expect("write");
    let footer = "4 files, 5 functions, 1 repair of PyPTO's plan";
    // (--only, shown, not shown)
    let cases: [(&str, &[&str], &[&str]); 4] = [
        (
            "repairs",
            &["repaired.py", "MR-R001"],
            &["bad.py", "refused.py", "clean.py"],
        ),
        (
            "errors",
            &["bad.py", "co_live_slot"],
            &["repaired.py", "bias_gelu\n", "clean.py"],
        ),
        (
            "warnings,errors",
            &["bad.py", "co_live_slot", "MR-R001"],
            &["clean.py", "bias_gelu\n"],
        ),
        (
            "warnings",
            &["MR-R001"],
            &["bad.py", "refused.py", "clean.py", "LOWER BOUND:"],
        ),
    ];
    for (only, shown, hidden) in cases {
        let result = memreuse(&["plan", ".", "--only", only], dir.path());
        assert_eq!(result.status.code(), Some(1), "--only {only}");
        let stdout = text(&result.stdout);
        for name in shown.iter().chain([&footer]) {
            assert!(stdout.contains(name), "--only {only}: no {name}:\n{stdout}");
        }
        for name in hidden {
            assert!(!stdout.contains(name), "--only {only}: {name}:\n{stdout}");
        }
    }
    let refused = memreuse(&["plan", ".", "--only", "errors", "--json"], dir.path());
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
}

/// `--emit sarif` is a SARIF 2.1.0 log as its schema requires it (checked here property by
/// property, without the schema: no network), its rules the code table, its results every
/// error, warning and note with its place and the places it names.
#[test]
fn sarif_is_a_valid_2_1_0_log_of_the_findings() {
    use serde_json::Value;
    let dir = findings_tree();
    std::fs::write(
        dir.path().join("bad.py"),
        "@pl.program\nclass X:\n  def (\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("binary.py"),
        b"@pl.program\nclass X:\n  \xff\n",
    )
    .expect("write");
    let levels = ["none", "note", "warning", "error"];
    let positive = |value: &Value| value.as_u64().is_some_and(|n| n >= 1);
    let check_place = |place: &Value, located: bool| {
        let uri = place["artifactLocation"]["uri"]
            .as_str()
            .expect("an artifact uri");
        assert!(
            !uri.is_empty() && !uri.contains(' ') && !uri.contains('\\'),
            "{uri}"
        );
        if located {
            assert!(positive(&place["region"]["startLine"]), "{place}");
            assert!(positive(&place["region"]["startColumn"]), "{place}");
        }
    };
    for exact in [false, true] {
        let mut args = vec!["plan", ".", "--emit", "sarif"];
        if exact {
            args.push("--exact");
        }
        let result = memreuse(&args, dir.path());
        assert_eq!(result.status.code(), Some(1), "{}", text(&result.stderr));
        let log: Value = serde_json::from_slice(&result.stdout).expect("JSON");
        assert_eq!(log["version"], "2.1.0");
        assert!(
            log["$schema"]
                .as_str()
                .is_some_and(|s| s.contains("sarif-2.1.0"))
        );
        let runs = log["runs"].as_array().expect("runs");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run["tool"]["driver"]["name"], "memreuse");
        assert!(
            ["utf16CodeUnits", "unicodeCodePoints"]
                .contains(&run["columnKind"].as_str().unwrap_or(""))
        );
        let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
        let ids: Vec<&str> = rules
            .iter()
            .map(|r| r["id"].as_str().expect("a rule id"))
            .collect();
        let table: Vec<&str> = memreuse::ir::codes::ALL.iter().map(|c| c.id).collect();
        assert_eq!(ids, table);
        for rule in rules {
            assert!(
                rule["shortDescription"]["text"]
                    .as_str()
                    .is_some_and(|t| !t.is_empty())
            );
            let level = rule["defaultConfiguration"]["level"].as_str().unwrap_or("");
            assert!(levels.contains(&level), "{rule}");
        }
        let mut found = Vec::new();
        for result in run["results"].as_array().expect("results") {
            let rule_id = result["ruleId"].as_str().expect("a rule id");
            let index = result["ruleIndex"].as_u64().expect("a rule index") as usize;
            assert_eq!(ids[index], rule_id);
            let level = result["level"].as_str().expect("a level");
            assert!(levels.contains(&level), "{result}");
            assert!(
                result["message"]["text"]
                    .as_str()
                    .is_some_and(|t| !t.is_empty())
            );
            let locations = result["locations"].as_array().expect("locations");
            assert_eq!(locations.len(), 1);
            let located = rule_id != memreuse::ir::codes::UNREADABLE;
            check_place(&locations[0]["physicalLocation"], located);
            let related = result["relatedLocations"]
                .as_array()
                .map_or(&[][..], Vec::as_slice);
            for (i, place) in related.iter().enumerate() {
                assert_eq!(place["id"].as_u64(), Some(i as u64));
                assert!(place["message"]["text"].is_string());
                check_place(&place["physicalLocation"], true);
            }
            found.push((rule_id.to_string(), level.to_string(), !related.is_empty()));
        }
        let has = |code: &str, level: &str, related: bool| {
            found
                .iter()
                .any(|(c, l, r)| c == code && l == level && *r == related)
        };
        assert!(has("E001", "error", false), "{found:?}");
        assert!(has("MR-E901", "error", false), "{found:?}");
        assert!(has("MR-E001", "error", false), "{found:?}");
        match exact {
            false => assert!(has("MR-R001", "warning", true), "{found:?}"),
            true => assert!(has("V003", "warning", true), "{found:?}"),
        }
    }
}

/// `memreuse man` prints its own page, `man SUBCOMMAND` a subcommand's with its options, and
/// `man --out DIR` writes a page per command and subcommand.
#[test]
fn every_subcommand_has_a_man_page() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = memreuse(&["man", "plan"], dir.path());
    assert!(plan.status.success(), "{}", text(&plan.stderr));
    let page = text(&plan.stdout);
    assert!(page.contains(".TH memreuse-plan 1"), "{page}");
    assert!(
        page.contains("\\-\\-lifetimes")
            && !page.contains("no\\-lifetimes")
            && page.contains("FILE::FUNCTION"),
        "{page}"
    );
    let prune = memreuse(&["man", "cache", "prune"], dir.path());
    assert!(text(&prune.stdout).contains(".TH memreuse-cache-prune 1"));
    let unknown = memreuse(&["man", "nope"], dir.path());
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("no subcommand 'nope' of memreuse (it has: plan,"));

    let out = dir.path().join("man1");
    let all = memreuse(&["man", "--out", out.to_str().expect("utf-8")], dir.path());
    assert!(all.status.success(), "{}", text(&all.stderr));
    let written = files_below(&out);
    for name in [
        "memreuse.1",
        "memreuse-plan.1",
        "memreuse-verify.1",
        "memreuse-cache-prune.1",
    ] {
        assert!(
            written.contains(&PathBuf::from(name)),
            "{name}: {written:?}"
        );
    }
    for page in &written {
        let text = std::fs::read_to_string(out.join(page)).expect("a page");
        let title = page.to_string_lossy().trim_end_matches(".1").to_string();
        assert!(text.contains(&format!(".TH {title} 1")), "{page:?}");
    }
}
