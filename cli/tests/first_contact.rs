//! End-to-end tests of what a new user meets first (issue 15): a CLI that works without
//! anything installed beside it, outputs that never lose data, every failure visible, exit
//! codes by one table, and a cache that follows the project rather than the directory.

use memreuse_test_support::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ sits in the workspace")
        .to_path_buf()
}

fn kernel(name: &str) -> PathBuf {
    repo()
        .join("examples/kernels")
        .join(name)
        .join("31_after_InitMemRef.py")
}

/// A sandbox: a home and state home of its own, so nothing is shared between tests and
/// nothing is written outside temporary directories.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("home")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("work")).expect("mkdir");
        Sandbox { dir }
    }

    /// Where the kernels of a test live.
    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn command(&self, exe: &Path, args: &[&str], cwd: &Path) -> Command {
        let mut command = Command::new(exe);
        command
            .args(args)
            .current_dir(cwd)
            .env_remove("MEMREUSE_STATE_DIR")
            .env_remove("MEMREUSED")
            // The summary's width: 80 columns in a pipe unless `COLUMNS` says otherwise.
            .env_remove("COLUMNS")
            .env("HOME", self.dir.path().join("home"))
            .env("XDG_STATE_HOME", self.dir.path().join("state"))
            .env("XDG_RUNTIME_DIR", self.dir.path());
        command
    }

    fn run(&self, args: &[&str], cwd: &Path) -> Output {
        self.command(Path::new(env!("CARGO_BIN_EXE_memreuse")), args, cwd)
            .output()
            .expect("the binary runs")
    }

    /// Copies `kernel` to `relative` below the work dir.
    fn put(&self, kernel: &Path, relative: &str) -> PathBuf {
        let target = self.work().join(relative);
        std::fs::create_dir_all(target.parent().expect("has a parent")).expect("mkdir");
        std::fs::copy(kernel, &target).expect("copy");
        target
    }
}

impl Drop for Sandbox {
    /// Stops any daemon a test started (its state dir is below the sandbox).
    fn drop(&mut self) {
        let _ = self.run(&["daemon", "stop"], &self.work());
    }
}

/// Runs a binary this test just copied. Another test thread that forks while the copy is
/// still open for writing makes `exec` fail with ETXTBSY for a moment; that is retried.
fn run_copied(command: &mut std::process::Command) -> Output {
    for _ in 0..100 {
        match command.output() {
            Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            result => return result.expect("runs"),
        }
    }
    panic!("the copied binary stayed busy for 2 s");
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {}", text(&output.stdout)))
}

// --- "README's main command builds only memreuse; then stats, query, explain and every
// daemon subcommand exit 3" ---

#[test]
fn commands_that_need_no_daemon_work_without_memreused_installed() {
    let sandbox = Sandbox::new();
    let alone = sandbox.dir.path().join("alone");
    std::fs::create_dir_all(&alone).expect("mkdir");
    let exe = alone.join("memreuse");
    std::fs::copy(env!("CARGO_BIN_EXE_memreuse"), &exe).expect("copy the binary");
    let file = sandbox.put(&kernel("elementwise_chain"), "k.py");
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    let run = |args: &[&str]| {
        run_copied(
            sandbox
                .command(&exe, args, &sandbox.work())
                .env("PATH", &alone),
        )
    };
    for args in [
        &["plan", "k.py"][..],
        &["stats"][..],
        &["query", "--no-daemon", "k.py"][..],
        &["explain", "k.py::bias_gelu", "x_tile", "gelu"][..],
    ] {
        let result = run(args);
        assert_eq!(
            result.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&result.stderr)
        );
    }
    let status = run(&["daemon", "status"]);
    assert_eq!(status.status.code(), Some(3), "{}", text(&status.stderr));
    let query = run(&["query", file.to_str().expect("utf-8")]);
    assert_eq!(query.status.code(), Some(3));
    assert!(
        text(&query.stderr).contains("cargo build --release"),
        "says how to get memreused: {}",
        text(&query.stderr)
    );
}

#[test]
fn the_daemon_is_found_on_path_when_not_beside_the_cli() {
    let sandbox = Sandbox::new();
    let (cli_dir, daemon_dir) = (
        sandbox.dir.path().join("cli"),
        sandbox.dir.path().join("daemon"),
    );
    std::fs::create_dir_all(&cli_dir).expect("mkdir");
    std::fs::create_dir_all(&daemon_dir).expect("mkdir");
    let exe = cli_dir.join("memreuse");
    std::fs::copy(env!("CARGO_BIN_EXE_memreuse"), &exe).expect("copy");
    let daemon = Path::new(env!("CARGO_BIN_EXE_memreuse")).with_file_name("memreused");
    std::fs::copy(&daemon, daemon_dir.join("memreused")).expect("copy memreused");
    sandbox.put(&kernel("elementwise_chain"), "k.py");
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    let run = |args: &[&str]| {
        run_copied(
            sandbox
                .command(&exe, args, &sandbox.work())
                .env("PATH", &daemon_dir),
        )
    };
    let query = run(&["query", "k.py"]);
    assert_eq!(query.status.code(), Some(0), "{}", text(&query.stderr));
    assert!(text(&query.stdout).contains("k.py\n  bias_gelu\n"));
    let stop = run(&["daemon", "stop"]);
    assert!(stop.status.success(), "{}", text(&stop.stderr));
}

// --- "README's test command fails: tests/dsa_solve.rs reads the benchmarks beside the
// clone, outside the repository" ---

#[test]
fn the_benchmarks_the_tests_need_are_in_the_repository() {
    // Data beside the clone may only be an optional extra (the conformance corpus); the
    // benchmark instances `tests/dsa_solve.rs` needs are copied in.
    let needle = format!("{}/benchmarks", "shared");
    let mut offenders = Vec::new();
    for dir in ["tests", "cli/tests", "daemon/tests", "benches"] {
        let Ok(entries) = std::fs::read_dir(repo().join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&path)
                    .expect("readable")
                    .contains(&needle)
            {
                offenders.push(path.display().to_string());
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "these read the benchmarks from outside the clone: {offenders:?}"
    );
    assert!(
        repo()
            .join("tests/data/benchmarks/reference_bounds.csv")
            .is_file()
    );
    for licence in ["minimalloc/LICENSE", "idealloc/LICENSE"] {
        assert!(repo().join("tests/data/benchmarks").join(licence).is_file());
    }
}

// --- "plan A/ B/ --emit ir --out DIR silently overwrites" ---

#[test]
fn out_mirrors_dump_directories_that_share_file_names() {
    let sandbox = Sandbox::new();
    sandbox.put(&kernel("elementwise_chain"), "A/31_after_InitMemRef.py");
    sandbox.put(&kernel("rms_norm"), "B/31_after_InitMemRef.py");
    let result = sandbox.run(
        &["plan", "A", "B/", "--emit", "ir", "--out", "out"],
        &sandbox.work(),
    );
    assert!(result.status.success(), "{}", text(&result.stderr));
    let a = std::fs::read_to_string(sandbox.work().join("out/A/31_after_InitMemRef.py"))
        .expect("A's output");
    let b = std::fs::read_to_string(sandbox.work().join("out/B/31_after_InitMemRef.py"))
        .expect("B's output");
    assert!(a.contains("class BiasGelu"), "{a}");
    assert!(b.contains("def rms_norm"), "{b}");
    assert!(!sandbox.work().join("out/31_after_InitMemRef.py").exists());
}

#[test]
fn out_refuses_to_overwrite_an_input() {
    let sandbox = Sandbox::new();
    let input = sandbox.put(&kernel("elementwise_chain"), "tree/k.py");
    let before = std::fs::read(&input).expect("readable");
    let result = sandbox.run(
        &["plan", "tree", "--emit", "ir", "--out", "tree"],
        &sandbox.work(),
    );
    assert_eq!(result.status.code(), Some(2), "{}", text(&result.stderr));
    assert!(text(&result.stderr).contains("overwrite the input"));
    assert_eq!(std::fs::read(&input).expect("readable"), before);
}

#[test]
fn a_run_never_plans_the_outputs_of_an_earlier_one() {
    let sandbox = Sandbox::new();
    sandbox.put(&kernel("elementwise_chain"), "k.py");
    let first = sandbox.run(
        &["plan", ".", "--emit", "ir", "--out", "planned"],
        &sandbox.work(),
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(sandbox.work().join("planned/k.py").is_file());
    let second = sandbox.run(&["plan", "."], &sandbox.work());
    assert!(second.status.success(), "{}", text(&second.stderr));
    let stdout = text(&second.stdout);
    assert!(stdout.contains("1 file, 1 function"), "{stdout}");
    assert!(stdout.contains("k.py\n"), "{stdout}");
    assert!(!stdout.contains("planned/"), "{stdout}");
}

// --- "Failed files and functions are absent from --emit json and query --json; an empty or
// program-less path exits 0; the footer undercounts failures" ---

/// A tree with one good file, one that does not parse and one whose second function the
/// planner refuses.
fn mixed_tree(sandbox: &Sandbox) {
    sandbox.put(&kernel("elementwise_chain"), "tree/good.py");
    sandbox.put(
        &repo().join("tests/data/errors/unknown_dtype.py"),
        "tree/bad.py",
    );
    sandbox.put(
        &repo().join("tests/data/cli/one_refused_function.py"),
        "tree/mixed.py",
    );
}

#[test]
fn json_lists_every_file_and_function_failed_ones_with_diagnostics() {
    let sandbox = Sandbox::new();
    mixed_tree(&sandbox);
    let result = sandbox.run(&["plan", "tree", "--emit", "json"], &sandbox.work());
    assert_eq!(result.status.code(), Some(1), "{}", text(&result.stderr));
    let document = json(&result);
    let files = document["files"].as_array().expect("files");
    type Row = (String, String, Vec<(String, String)>);
    let summary: Vec<Row> = files
        .iter()
        .map(|f| {
            (
                f["path"].as_str().expect("path").to_string(),
                f["status"].as_str().expect("status").to_string(),
                f["functions"]
                    .as_array()
                    .expect("functions")
                    .iter()
                    .map(|g| {
                        (
                            g["name"].as_str().expect("name").to_string(),
                            g["status"].as_str().expect("status").to_string(),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        summary,
        vec![
            ("tree/bad.py".into(), "failed".into(), vec![]),
            (
                "tree/good.py".into(),
                "planned".into(),
                vec![pair("bias_gelu", "planned")]
            ),
            (
                "tree/mixed.py".into(),
                "failed".into(),
                vec![
                    pair("bias_gelu", "planned"),
                    pair("co_live_slot", "failed"),
                    pair("bias_gelu_again", "planned"),
                ]
            ),
        ]
    );
    assert_eq!(files[0]["diagnostics"][0]["code"], "E002");
    assert_eq!(files[0]["diagnostics"][0]["line"], 9);
    let refused = &files[2]["functions"][1];
    assert_eq!(refused["failure"], "plan");
    assert_eq!(refused["diagnostics"][0]["code"], "MR-E001");
}

#[test]
fn one_refused_function_leaves_the_rest_of_the_tree_planned() {
    let sandbox = Sandbox::new();
    mixed_tree(&sandbox);
    let result = sandbox.run(&["plan", "tree"], &sandbox.work());
    assert_eq!(result.status.code(), Some(1));
    let stdout = text(&result.stdout);
    assert!(stdout.contains("tree/mixed.py\n  bias_gelu\n"), "{stdout}");
    assert!(stdout.contains("\n  bias_gelu_again\n"), "{stdout}");
    assert!(stdout.contains("tree/good.py\n  bias_gelu\n"), "{stdout}");
    assert!(
        stdout.contains("\n  co_live_slot\n   error: no plan"),
        "{stdout}"
    );
    let footer = stdout.lines().last().expect("a footer");
    assert_eq!(
        footer, "3 files, 4 functions; errors: 1 file does not parse, 1 function has no plan",
        "{stdout}"
    );
    let stderr = text(&result.stderr);
    assert!(stderr.contains("bad.py:9:30"), "{stderr}");
    assert!(stderr.contains("MR-E001"), "{stderr}");
}

#[test]
fn query_json_lists_failed_functions_with_diagnostics() {
    let sandbox = Sandbox::new();
    mixed_tree(&sandbox);
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    let result = sandbox.run(
        &["query", "--no-daemon", "--json", "tree/mixed.py"],
        &sandbox.work(),
    );
    assert_eq!(result.status.code(), Some(1), "{}", text(&result.stderr));
    let document = json(&result);
    let functions = document["files"][0]["functions"]
        .as_array()
        .expect("functions");
    assert_eq!(functions.len(), 3);
    assert_eq!(functions[1]["status"], "failed");
    assert_eq!(functions[1]["diagnostics"][0]["code"], "MR-E001");
    let bad = sandbox.run(
        &["query", "--no-daemon", "--json", "tree/bad.py"],
        &sandbox.work(),
    );
    assert_eq!(bad.status.code(), Some(1));
    let document = json(&bad);
    assert_eq!(document["files"][0]["status"], "failed");
    assert_eq!(document["files"][0]["diagnostics"][0]["code"], "E002");
}

#[test]
fn a_path_without_a_program_is_an_error_unless_allowed() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.work().join("empty")).expect("mkdir");
    std::fs::write(sandbox.work().join("helpers.py"), "import os\n").expect("write");
    for path in ["empty", "helpers.py"] {
        let result = sandbox.run(&["plan", path], &sandbox.work());
        assert_eq!(result.status.code(), Some(1), "{path}");
        assert!(
            text(&result.stderr).contains("holds no @pl.program"),
            "{path}: {}",
            text(&result.stderr)
        );
        let allowed = sandbox.run(&["plan", path, "--allow-empty"], &sandbox.work());
        assert_eq!(allowed.status.code(), Some(0), "{path}");
    }
}

// --- "… --emit json | head -1 → error: Broken pipe, exit 1" ---

#[test]
fn a_closed_pipe_ends_quietly_with_exit_0() {
    let sandbox = Sandbox::new();
    for args in [
        &["plan", "examples/kernels", "--emit", "json", "--no-cache"][..],
        &["plan", "examples/kernels", "--no-cache"][..],
    ] {
        let mut child = sandbox
            .command(Path::new(env!("CARGO_BIN_EXE_memreuse")), args, &repo())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        // Closing the read end before the child writes makes every write fail with EPIPE.
        drop(child.stdout.take());
        let output = child.wait_with_output().expect("waits");
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert!(
            output.stderr.is_empty(),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
}

// --- "A read-only state dir makes plan exit 3 instead of warning and planning without the
// cache; query from a subdirectory starts a second, cold daemon rooted there" ---

#[test]
fn an_unusable_state_dir_warns_and_plans_without_the_cache() {
    let sandbox = Sandbox::new();
    sandbox.put(&kernel("elementwise_chain"), "k.py");
    // A state dir below a plain file can never be created (even by root).
    let blocker = sandbox.dir.path().join("not-a-dir");
    std::fs::write(&blocker, "").expect("write");
    let result = sandbox
        .command(
            Path::new(env!("CARGO_BIN_EXE_memreuse")),
            &["plan", "k.py"],
            &sandbox.work(),
        )
        .env("MEMREUSE_STATE_DIR", blocker.join("state"))
        .output()
        .expect("runs");
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    assert!(text(&result.stdout).contains("k.py\n  bias_gelu\n"));
    let stderr = text(&result.stderr);
    assert!(
        stderr.contains("warning:") && stderr.contains("without the cache"),
        "{stderr}"
    );
}

#[test]
fn query_from_a_subdirectory_talks_to_the_project_daemon() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.work().join("memreuse.toml"), "backend = \"910b\"\n").expect("write");
    sandbox.put(&kernel("elementwise_chain"), "sub/k.py");
    let sub = sandbox.work().join("sub");
    let query = sandbox.run(&["query", "k.py"], &sub);
    assert_eq!(query.status.code(), Some(0), "{}", text(&query.stderr));
    let status = sandbox.run(&["daemon", "status", "--json"], &sandbox.work());
    assert_eq!(status.status.code(), Some(0), "{}", text(&status.stderr));
    // It plans with the project's memreuse.toml, and says so.
    assert_eq!(json(&status)["backend"], "910b");
    let root = sandbox.work().canonicalize().expect("canonical");
    assert_eq!(
        json(&status)["root"].as_str().map(PathBuf::from),
        Some(root)
    );
    // The table names the file relative to the project root.
    assert!(text(&query.stdout).contains("sub/k.py\n  bias_gelu\n"));
}

// --- "The cache is keyed per working directory (same files planned from another
// directory: 0 hits)" ---

#[test]
fn the_same_files_planned_from_another_directory_hit_the_cache() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    sandbox.put(&kernel("elementwise_chain"), "kernels/k.py");
    sandbox.put(&kernel("rms_norm"), "kernels/r.py");
    let first = sandbox.run(&["plan", "kernels"], &sandbox.work());
    assert!(first.status.success(), "{}", text(&first.stderr));
    let elsewhere = sandbox.dir.path().join("home");
    let kernels = sandbox.work().join("kernels");
    let second = sandbox.run(&["plan", kernels.to_str().expect("utf-8")], &elsewhere);
    assert!(second.status.success(), "{}", text(&second.stderr));
    let stats = sandbox.run(&["stats", "--json"], &kernels);
    assert!(stats.status.success(), "{}", text(&stats.stderr));
    let last = &json(&stats)["last_run"];
    assert_eq!(last["functions"], 2, "{last}");
    assert_eq!(last["cached"], 2, "{last}");
}

// --- "Exit codes stray from README's 0/1/2/3 (usage mistakes exit 1, a nonexistent path
// exits 1)" ---

#[test]
fn exit_codes_follow_the_readme_table_for_every_subcommand() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    sandbox.put(&kernel("elementwise_chain"), "k.py");
    sandbox.put(&kernel("rms_norm"), "r.py");
    sandbox.put(&repo().join("tests/data/errors/unknown_dtype.py"), "bad.py");
    let planned = sandbox.work().join("planned.py");
    let plan = sandbox.run(&["plan", "k.py", "--emit", "ir"], &sandbox.work());
    std::fs::write(&planned, &plan.stdout).expect("write");
    let csv = repo().join("tests/data/benchmarks/minimalloc/examples/input.12.csv");
    let csv = csv.to_str().expect("utf-8");
    let cases: &[(&[&str], i32)] = &[
        (&["plan", "k.py"], 0),
        (&["plan", "bad.py"], 1),
        (&["plan"], 2),
        (&["plan", "missing.py"], 2),
        (&["plan", "k.py", "--emit", "nonsense"], 2),
        (&["plan", "k.py", "r.py", "--emit", "ir"], 2),
        (&["verify", "planned.py"], 0),
        (&["verify", "bad.py"], 1),
        (&["verify", "missing.py"], 2),
        (&["explain", "k.py::bias_gelu", "x_tile", "gelu"], 0),
        (&["explain", "k.py", "x_tile", "gelu"], 2),
        (&["explain", "k.py::nothing", "x_tile", "gelu"], 1),
        (&["query", "--no-daemon", "k.py::nothing"], 1),
        (&["explain", "missing.py::f", "a", "b"], 2),
        (&["query", "--no-daemon", "k.py"], 0),
        (&["query", "--no-daemon", "bad.py"], 1),
        (&["query", "--no-daemon", "/"], 2),
        (&["query", "--no-daemon", "missing.py"], 2),
        (&["stats"], 0),
        (&["daemon", "status"], 3),
        (&["daemon", "frobnicate"], 2),
        (&["solve", csv], 0),
        (&["solve", "missing.csv"], 2),
        (&["completions", "bash"], 0),
        (&["completions", "tcsh-9"], 2),
        (&["--version"], 0),
        (&["no-such-command"], 2),
    ];
    for (args, code) in cases {
        let result = sandbox.run(args, &sandbox.work());
        assert_eq!(
            result.status.code(),
            Some(*code),
            "{args:?}: {}",
            text(&result.stderr)
        );
    }
}

// --- "verify on an unplanned dump reports 89 V005 errors instead of saying the file is not
// planned yet, and prints no summary line" ---

#[test]
fn verify_says_an_unplanned_dump_is_not_planned_yet_and_sums_up() {
    let sandbox = Sandbox::new();
    sandbox.put(&kernel("flash_attention"), "fa/31_after_InitMemRef.py");
    // The same text under a planned-looking name: the carries tell.
    sandbox.put(&kernel("flash_attention"), "fa/33_after_MemoryReuse.py");
    // In a folder, a dump named as taken before MemoryReuse is skipped and counted.
    let result = sandbox.run(&["verify", "fa"], &sandbox.work());
    assert_eq!(result.status.code(), Some(1));
    let stderr = text(&result.stderr);
    assert_eq!(stderr.matches("not planned yet").count(), 1, "{stderr}");
    assert!(!stderr.contains("V005"), "{stderr}");
    let stdout = text(&result.stdout);
    assert_eq!(
        stdout.lines().last(),
        Some(
            "0 violations in 0 files (1 file checked, 1 not planned yet, 1 file dumped before \
             MemoryReuse skipped)"
        ),
        "{stdout}"
    );
    // Named on the command line, it is checked, and said to be unplanned.
    let named = sandbox.run(
        &[
            "verify",
            "fa/31_after_InitMemRef.py",
            "fa/33_after_MemoryReuse.py",
        ],
        &sandbox.work(),
    );
    assert_eq!(named.status.code(), Some(1));
    assert_eq!(
        text(&named.stdout).lines().last(),
        Some("0 violations in 0 files (2 files checked, 2 not planned yet)"),
    );
    // A folder of PyPTO's dumps (MemoryReuse's input and output) verifies.
    sandbox.put(&kernel("flash_attention"), "dumps/31_after_InitMemRef.py");
    let planned = sandbox.run(
        &["plan", "dumps/31_after_InitMemRef.py", "--emit", "ir"],
        &sandbox.work(),
    );
    std::fs::write(
        sandbox.work().join("dumps/32_after_MemoryReuse.py"),
        &planned.stdout,
    )
    .expect("write");
    let folder = sandbox.run(&["verify", "dumps"], &sandbox.work());
    assert_eq!(folder.status.code(), Some(0), "{}", text(&folder.stderr));
    let planned = sandbox.run(
        &["plan", "fa/31_after_InitMemRef.py", "--emit", "ir"],
        &sandbox.work(),
    );
    std::fs::write(sandbox.work().join("planned.py"), &planned.stdout).expect("write");
    let verified = sandbox.run(&["verify", "planned.py", "--json"], &sandbox.work());
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{}",
        text(&verified.stderr)
    );
    let document = json(&verified);
    assert_eq!(document["violations"], 0);
    assert_eq!(document["files"][0]["status"], "verified");
}

#[test]
fn explain_and_daemon_status_speak_json() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    sandbox.put(&kernel("elementwise_chain"), "k.py");
    let explain = sandbox.run(
        &["explain", "k.py::bias_gelu", "x_tile", "gelu", "--json"],
        &sandbox.work(),
    );
    assert_eq!(explain.status.code(), Some(0), "{}", text(&explain.stderr));
    let document = json(&explain);
    assert_eq!(document["function"], "bias_gelu");
    assert!(
        document["explanation"]
            .as_str()
            .is_some_and(|e| !e.is_empty())
    );
    let start = sandbox.run(&["daemon", "start"], &sandbox.work());
    assert!(start.status.success(), "{}", text(&start.stderr));
    let status = sandbox.run(&["daemon", "status", "--json"], &sandbox.work());
    assert!(status.status.success(), "{}", text(&status.stderr));
    assert!(
        json(&status)["revision"].is_u64(),
        "{}",
        text(&status.stdout)
    );
    let human = sandbox.run(&["daemon", "status"], &sandbox.work());
    let human = text(&human.stdout);
    assert!(
        human
            .lines()
            .any(|l| l.starts_with("store:")
                && (l.contains(" B on disk") || l.contains("iB on disk"))),
        "{human}"
    );
}

#[test]
fn completions_and_the_man_page_come_from_the_one_clap_definition() {
    let sandbox = Sandbox::new();
    for shell in ["bash", "zsh", "fish"] {
        let result = sandbox.run(&["completions", shell], &sandbox.work());
        assert!(result.status.success(), "{shell}");
        let script = text(&result.stdout);
        for flag in ["allow-empty", "emit", "color"] {
            assert!(script.contains(flag), "{shell} lacks {flag}");
        }
    }
    let man = sandbox.run(&["man"], &sandbox.work());
    assert!(man.status.success());
    assert!(text(&man.stdout).contains(".TH memreuse 1"));
    let version = sandbox.run(&["--version"], &sandbox.work());
    let version = text(&version.stdout);
    assert!(version.contains("commit"), "{version}");
}

#[test]
fn color_is_never_written_to_a_pipe_unless_asked() {
    let sandbox = Sandbox::new();
    sandbox.put(&repo().join("tests/data/errors/unknown_dtype.py"), "bad.py");
    let plain = sandbox.run(&["plan", "bad.py"], &sandbox.work());
    assert!(!text(&plain.stderr).contains('\u{1b}'));
    let always = sandbox.run(&["plan", "bad.py", "--color", "always"], &sandbox.work());
    assert!(text(&always.stderr).contains('\u{1b}'));
    let never = sandbox.run(&["plan", "bad.py", "--color", "never"], &sandbox.work());
    assert_eq!(never.stderr, plain.stderr);
}

/// Every command's `--help`, one after the other.
fn every_help(sandbox: &Sandbox) -> String {
    let mut helps = String::new();
    let mut commands: Vec<Vec<&str>> = vec![vec![]];
    for sub in [
        "plan",
        "explain",
        "verify",
        "stats",
        "query",
        "daemon",
        "solve",
        "completions",
        "man",
        "cache",
        "view",
        "codes",
    ] {
        commands.push(vec![sub]);
    }
    for action in ["start", "stop", "status", "run"] {
        commands.push(vec!["daemon", action]);
    }
    for action in ["stats", "prune", "clear"] {
        commands.push(vec!["cache", action]);
    }
    for command in &commands {
        let mut args = command.clone();
        args.push("--help");
        let result = sandbox.run(&args, &sandbox.work());
        assert!(result.status.success(), "{args:?}");
        helps.push_str(&text(&result.stdout));
    }
    helps
}

/// The README and the command reference it points to.
fn user_docs() -> String {
    ["README.md", "docs/cli.md"]
        .map(|doc| std::fs::read_to_string(repo().join(doc)).expect("the docs are readable"))
        .join("\n")
}

#[test]
fn every_flag_the_readme_names_exists() {
    let sandbox = Sandbox::new();
    let helps = every_help(&sandbox);
    let readme = user_docs();
    // cargo's own flags, in the set-up commands.
    let cargo_flags = ["--release", "--workspace", "--path"];
    let mut missing = Vec::new();
    for (i, _) in readme.match_indices("--") {
        let flag: String = readme[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if flag.is_empty() || !flag.starts_with(|c: char| c.is_ascii_lowercase()) {
            continue;
        }
        let flag = format!("--{flag}");
        // Listed as `--flag <VALUE>`, `--flag`, or `--flag...` (repeatable).
        let listed = [" ", "\n", "..."]
            .iter()
            .any(|end| helps.contains(&format!("{flag}{end}")));
        if !listed && !cargo_flags.contains(&flag.as_str()) && !missing.contains(&flag) {
            missing.push(flag);
        }
    }
    assert!(
        missing.is_empty(),
        "README or docs/cli.md names flags no --help lists: {missing:?}"
    );
}

/// Codes as `--help`, README and docs/cli.md name them (`MR-R002`, `V008`, `PH-MR-001`,
/// `E001`), each one in the code table that `memreuse codes` prints.
#[test]
fn every_code_the_help_and_docs_name_is_in_the_code_table() {
    let sandbox = Sandbox::new();
    let listed = sandbox.run(&["codes", "--json"], &sandbox.work());
    assert!(listed.status.success());
    let table: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).expect("JSON");
    let known: Vec<&str> = table
        .iter()
        .filter_map(|row| row["code"].as_str())
        .collect();
    assert_eq!(
        known.len(),
        memreuse::ir::codes::ALL.len(),
        "every code is listed"
    );
    let texts = every_help(&sandbox) + &user_docs();
    let mut unknown = Vec::new();
    for word in texts.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        let word = word.trim_matches('-');
        let digits = |d: &str| d.len() == 3 && d.bytes().all(|b| b.is_ascii_digit());
        let shaped = match word.strip_prefix("MR-") {
            Some(rest) => rest.starts_with(['E', 'W', 'R']) && digits(&rest[1..]),
            None => {
                word.strip_prefix("PH-MR-").is_some_and(digits)
                    || (word.starts_with(['E', 'V']) && digits(&word[1..]))
            }
        };
        if shaped && !known.contains(&word) && !unknown.contains(&word) {
            unknown.push(word);
        }
    }
    assert!(
        unknown.is_empty(),
        "codes the code table lacks: {unknown:?}"
    );
}

// --- "query on a read-only tree fails on its freshness cookie" ---

#[test]
fn a_query_answers_when_the_freshness_cookie_cannot_be_written() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    sandbox.put(&kernel("elementwise_chain"), "k.py");
    let start = sandbox.run(&["daemon", "start"], &sandbox.work());
    assert!(start.status.success(), "{}", text(&start.stderr));
    let status = sandbox.run(&["daemon", "status", "--json"], &sandbox.work());
    let pid = json(&status)["pid"].as_u64().expect("pid");
    // Directories where the daemon's next cookies would go make every cookie write fail, as
    // on a read-only tree (which root, who may run the tests, cannot make).
    for n in 0..16 {
        std::fs::create_dir_all(sandbox.work().join(format!(".memreuse-cookie-{pid}-{n}")))
            .expect("mkdir");
    }
    let query = sandbox.run(&["query", "k.py"], &sandbox.work());
    assert_eq!(query.status.code(), Some(0), "{}", text(&query.stderr));
    assert!(text(&query.stdout).contains("k.py\n  bias_gelu\n"));
    assert!(
        text(&query.stderr).contains("may be stale"),
        "{}",
        text(&query.stderr)
    );
}

// --- "The cache … is never pruned (104 MB for 114 MB of sources, growing with every edit)" ---

#[test]
fn cache_prune_evicts_the_least_recently_used_and_clear_empties_it() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    sandbox.put(&kernel("elementwise_chain"), "a.py");
    sandbox.put(&kernel("flash_attention"), "b.py");
    let work = sandbox.work();
    let run = |args: &[&str]| {
        let result = sandbox.run(args, &work);
        assert!(
            result.status.success(),
            "{args:?}: {}",
            text(&result.stderr)
        );
        result
    };
    let cached = |file: &str| -> Vec<bool> {
        let document = json(&run(&["plan", file, "--emit", "json"]));
        document["files"][0]["functions"]
            .as_array()
            .expect("functions")
            .iter()
            .map(|f| f["cached"].as_bool().expect("cached"))
            .collect()
    };
    run(&["plan", "a.py"]);
    let just_a = json(&run(&["cache", "prune", "--max-size", "1 TiB", "--json"]));
    let size_of_a = just_a["bytes_before"].as_u64().expect("bytes");
    assert!(size_of_a > 0);
    run(&["plan", "b.py"]);
    // a is planned again after b (edited, so the run writes and records what it used): b is
    // now the least recently used.
    let a = sandbox.work().join("a.py");
    let mut text_of_a = std::fs::read_to_string(&a).expect("readable");
    text_of_a.push_str("# edited\n");
    std::fs::write(&a, text_of_a).expect("write");
    run(&["plan", "a.py"]);
    let size = (size_of_a * 3 / 2).to_string();
    let pruned = json(&run(&["cache", "prune", "--max-size", &size, "--json"]));
    assert!(pruned["removed"].as_u64().expect("removed") > 0, "{pruned}");
    assert!(cached("a.py").iter().all(|&c| c), "a's plans were kept");
    assert!(cached("b.py").iter().all(|&c| !c), "b's plans were evicted");
    let cleared = run(&["cache", "clear"]);
    assert!(text(&cleared.stdout).starts_with("cleared the cache"));
    assert!(
        cached("a.py").iter().all(|&c| !c),
        "nothing is left after clear"
    );
}

#[test]
fn the_cache_cap_in_memreuse_toml_is_kept_by_every_plan() {
    let sandbox = Sandbox::new();
    std::fs::write(
        sandbox.work().join("memreuse.toml"),
        "[cache]\nmax-size = \"1 KiB\"\n",
    )
    .expect("write");
    sandbox.put(&kernel("elementwise_chain"), "a.py");
    sandbox.put(&kernel("flash_attention"), "b.py");
    for file in ["a.py", "b.py"] {
        let result = sandbox.run(&["plan", file], &sandbox.work());
        assert!(result.status.success(), "{}", text(&result.stderr));
    }
    // Only what the last run used survives a cap smaller than everything.
    let stats = json(&sandbox.run(&["cache", "prune", "--json"], &sandbox.work()));
    assert_eq!(stats["cap"], 1024);
    let again = sandbox.run(&["plan", "a.py", "--emit", "json"], &sandbox.work());
    let document = json(&again);
    assert_eq!(document["files"][0]["functions"][0]["cached"], false);
    let bad = std::fs::write(
        sandbox.work().join("memreuse.toml"),
        "[cache]\nmax-size = \"lots\"\n",
    );
    bad.expect("write");
    let result = sandbox.run(&["cache", "prune"], &sandbox.work());
    assert_eq!(result.status.code(), Some(1));
    assert!(
        text(&result.stderr).contains("max-size"),
        "{}",
        text(&result.stderr)
    );
}

// --- "The cache … is used by one process at a time (3 of 4 parallel plans run uncached)" ---

/// Functions planned (not from the cache) and functions in all, of a `plan --emit json`.
fn planned_of(output: &Output) -> (usize, usize) {
    let (mut planned, mut functions) = (0, 0);
    for file in json(output)["files"].as_array().expect("files") {
        for function in file["functions"].as_array().expect("functions") {
            functions += 1;
            planned += usize::from(function["cached"] == false);
        }
    }
    (planned, functions)
}

#[test]
fn plans_beside_a_long_one_share_its_cache_without_waiting_for_it() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    for name in ["elementwise_chain", "flash_attention", "rms_norm"] {
        sandbox.put(&kernel(name), &format!("warm/{name}.py"));
        sandbox.put(&kernel(name), &format!("cold/{name}.py"));
    }
    sandbox.put(&kernel("matmul_kloop"), "cold/matmul_kloop.py");
    let warm = sandbox.run(&["plan", "warm"], &sandbox.work());
    assert!(warm.status.success(), "{}", text(&warm.stderr));
    // A large cold tree keeps its plan (the first to open the store) busy for seconds.
    let config = memreuse_testgen::tree_gen::TreeConfig {
        files: 100,
        functions: 10,
        tiles: 8..=20,
        seed: 7,
    };
    for (path, source) in memreuse_testgen::tree_gen::generate(&config) {
        let path = sandbox.work().join("big").join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, source).expect("write");
    }
    let exe = Path::new(env!("CARGO_BIN_EXE_memreuse"));
    let mut long = sandbox
        .command(exe, &["plan", "big", "-q"], &sandbox.work())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    // Until it holds the store (its socket appears; with none, a moment).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let serving = || {
        let states = sandbox.dir.path().join("state/memreuse");
        std::fs::read_dir(states)
            .into_iter()
            .flatten()
            .flatten()
            .any(|dir| dir.path().join("cache.sock").exists())
    };
    while !serving() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let beside: Vec<_> = ["warm", "cold", "warm"]
        .into_iter()
        .map(|dir| {
            sandbox
                .command(exe, &["plan", dir, "--emit", "json"], &sandbox.work())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawns")
        })
        .collect();
    let outputs: Vec<Output> = beside
        .into_iter()
        .map(|c| c.wait_with_output().expect("waits"))
        .collect();
    assert!(
        long.try_wait().expect("polls").is_none(),
        "the plans beside it finished only after the long one"
    );
    for output in &outputs {
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(!stderr.contains("waiting"), "a reader waited: {stderr}");
        assert!(!stderr.contains("without"), "{stderr}");
    }
    assert_eq!(
        planned_of(&outputs[0]),
        (0, 3),
        "warm plans come from its cache"
    );
    assert_eq!(planned_of(&outputs[2]), (0, 3));
    // Three of its files equal warm ones (identical functions share entries): one is new.
    assert_eq!(
        planned_of(&outputs[1]),
        (1, 4),
        "the new function is planned"
    );
    let long = long.wait_with_output().expect("waits");
    assert!(long.status.success(), "{}", text(&long.stderr));
    // What the cold plan computed was written through the long one's store.
    let again = sandbox.run(&["plan", "cold", "--emit", "json"], &sandbox.work());
    assert_eq!(planned_of(&again), (0, 4), "{}", text(&again.stderr));
}

// --- "plan while the daemon runs plans everything uncached instead of asking it" ---

#[test]
fn plan_reads_the_cache_through_a_running_daemon() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    for name in ["elementwise_chain", "flash_attention", "rms_norm"] {
        sandbox.put(&kernel(name), &format!("kernels/{name}.py"));
    }
    // A query waits until the daemon has seen (and planned) the tree.
    for name in ["elementwise_chain", "flash_attention", "rms_norm"] {
        let query = sandbox.run(&["query", &format!("kernels/{name}.py")], &sandbox.work());
        assert!(query.status.success(), "{}", text(&query.stderr));
    }
    let plan = sandbox.run(&["plan", "kernels", "--emit", "json"], &sandbox.work());
    assert!(plan.status.success(), "{}", text(&plan.stderr));
    assert!(
        !text(&plan.stderr).contains("without"),
        "{}",
        text(&plan.stderr)
    );
    let mut functions = 0;
    for file in json(&plan)["files"].as_array().expect("files") {
        for function in file["functions"].as_array().expect("functions") {
            functions += 1;
            assert_eq!(function["cached"], true, "{}", function["name"]);
        }
    }
    assert!(functions >= 3);
}

// --- "a summary a newcomer can read: paths once per file, headers explained, totals, which
// tiles share a buffer with -v" ---

#[test]
fn the_summary_names_each_file_once_explains_itself_and_lists_sharing_with_v() {
    let sandbox = Sandbox::new();
    sandbox.put(&kernel("matmul_kloop"), "k.py");
    let plain = text(&sandbox.run(&["plan", "k.py"], &sandbox.work()).stdout);
    assert_eq!(plain.matches("k.py").count(), 1, "{plain}");
    assert!(plain.contains("before -> after"), "{plain}");
    assert!(plain.contains("in all: "), "{plain}");
    let document = json(&sandbox.run(&["plan", "k.py", "--emit", "json"], &sandbox.work()));
    let buffer = &document["files"][0]["functions"][0]["spaces"][0]["buffers"][0];
    let members: Vec<&str> = buffer["members"]
        .as_array()
        .expect("members")
        .iter()
        .map(|m| m.as_str().expect("name"))
        .collect();
    let verbose = text(&sandbox.run(&["plan", "k.py", "-v"], &sandbox.work()).stdout);
    let listed = format!("{} (", buffer["base"].as_str().expect("base"));
    assert!(
        verbose
            .lines()
            .any(|l| l.trim_start().starts_with(&listed) && l.ends_with(&members.join(", "))),
        "{verbose}"
    );
    assert!(!plain.contains(&members.join(", ")), "{plain}");
}

#[test]
fn every_summary_line_of_the_bundled_examples_fits_80_columns_in_a_pipe() {
    let sandbox = Sandbox::new();
    let mut checked = 0;
    for backend in ["none", "910b", "950"] {
        for extra in [
            &[][..],
            &["-v"][..],
            &["--planner", "dsa"][..],
            &["--exact"][..],
        ] {
            let mut args = vec![
                "plan",
                "examples/kernels",
                "--no-cache",
                "--backend",
                backend,
            ];
            args.extend_from_slice(extra);
            let out = sandbox.run(&args, &repo());
            let summary = text(&out.stdout);
            assert!(summary.contains("FUNCTION"), "{args:?}: {summary}");
            for line in summary.lines() {
                assert!(
                    line.chars().count() <= 80,
                    "{args:?}: {} columns:\n{line}",
                    line.chars().count()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked} lines");
    // The same kernels answered by `query` (from the daemon) keep to it too.
    let file = sandbox.put(&kernel("if_phi_select"), "k.py");
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    std::fs::write(sandbox.work().join("memreuse.toml"), "backend = \"950\"\n").expect("write");
    let out = sandbox.run(&["query", file.to_str().expect("utf-8")], &sandbox.work());
    assert!(out.status.success(), "{}", text(&out.stderr));
    for line in text(&out.stdout).lines() {
        assert!(line.chars().count() <= 80, "query: {line}");
    }
}

#[test]
fn query_colours_daemon_and_in_process_diagnostics_only_when_asked() {
    let sandbox = Sandbox::new();
    sandbox.put(&repo().join("tests/data/errors/unknown_dtype.py"), "bad.py");
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    for daemon in [&[][..], &["--no-daemon"][..]] {
        let run = |color: &[&str]| {
            let mut args = vec!["query", "bad.py"];
            args.extend_from_slice(daemon);
            args.extend_from_slice(color);
            let out = sandbox.run(&args, &sandbox.work());
            assert_eq!(
                out.status.code(),
                Some(1),
                "{args:?}: {}",
                text(&out.stderr)
            );
            text(&out.stderr)
        };
        let plain = run(&[]);
        assert!(plain.contains("E0"), "{daemon:?}: {plain}");
        assert!(
            !plain.contains('\u{1b}'),
            "{daemon:?}: colour in a pipe: {plain}"
        );
        let always = run(&["--color", "always"]);
        assert!(always.contains('\u{1b}'), "{daemon:?}: no colour: {always}");
        assert_eq!(run(&["--color", "never"]), plain, "{daemon:?}");
    }
}

// --- "source line numbers (not statement numbers) in explain, JSON and the SVG's axis
// labels" ---

#[test]
fn json_and_explain_give_source_lines_cold_and_warm() {
    let sandbox = Sandbox::new();
    let file = sandbox.put(&kernel("flash_attention"), "k.py");
    let source = std::fs::read_to_string(&file).expect("read");
    let source: Vec<&str> = source.lines().collect();
    // The line a lifetime row names defines its tile.
    let check = |document: &serde_json::Value| {
        let lifetimes = document["files"][0]["functions"][0]["lifetimes"]
            .as_array()
            .expect("lifetimes");
        assert!(lifetimes.len() > 10);
        for l in lifetimes {
            let var = l["var"].as_str().expect("var");
            let def = l["def_line"].as_u64().expect("def_line") as usize;
            let last = l["last_use_line"].as_u64().expect("last_use_line") as usize;
            assert!(def <= last, "{l}");
            assert!(
                source[def - 1].trim_start().starts_with(var),
                "{var}: line {def} is {:?}",
                source[def - 1]
            );
            assert!(source[last - 1].contains(var) || last > def, "{l}");
        }
    };
    let args = ["plan", "k.py", "--emit", "json", "--lifetimes"];
    let cold = json(&sandbox.run(&args, &sandbox.work()));
    check(&cold);
    let warm = json(&sandbox.run(&args, &sandbox.work()));
    assert_eq!(warm["files"][0]["functions"][0]["cached"], true);
    check(&warm);
    assert_eq!(
        cold["files"][0]["functions"][0]["lifetimes"],
        warm["files"][0]["functions"][0]["lifetimes"]
    );

    let explained = sandbox.run(
        &["explain", "k.py::flash_attention_block", "o_init", "m_init"],
        &sandbox.work(),
    );
    let explained = text(&explained.stdout);
    let o_init = 1 + source
        .iter()
        .position(|l| l.trim_start().starts_with("o_init:"))
        .expect("o_init is defined");
    assert!(
        explained.contains(&format!(
            "o_init: defined at line {o_init}, last used at line "
        )),
        "{explained}"
    );
}

#[test]
fn a_warm_run_of_every_bundled_example_takes_every_manifest_from_the_cache() {
    let sandbox = Sandbox::new();
    let state = sandbox.dir.path().join("cache-state");
    let state = state.to_str().expect("utf-8");
    for run in 0..2 {
        let out = sandbox.run(&["plan", "examples/kernels", "--state-dir", state], &repo());
        assert!(out.status.success(), "run {run}: {}", text(&out.stderr));
    }
    let stats = json(&sandbox.run(&["stats", "--json", "--state-dir", state], &repo()));
    let last = &stats["last_run"];
    // A manifest of a function with more tiles than its report has bytes was rejected as
    // malformed on every run, and its file read and written again.
    assert_eq!(last["lookups"]["rejected"], 0, "{last:#}");
    assert_eq!(last["lookups"]["file_misses"], 0, "{last:#}");
    assert_eq!(last["written"], 0, "{last:#}");
}

#[test]
fn a_file_named_another_way_is_not_read_again() {
    let sandbox = Sandbox::new();
    let file = sandbox.put(&kernel("rms_norm"), "k/a.py");
    std::fs::create_dir_all(sandbox.work().join(".git")).expect("mkdir");
    // Stamps are trusted for files modified a second before they were read.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let written = |args: &[&str], cwd: &Path| {
        let out = sandbox.run(args, cwd);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stats = json(&sandbox.run(&["stats", "--json"], &sandbox.work()));
        stats["last_run"]["written"].as_u64().expect("written")
    };
    assert!(
        written(&["plan", "k/a.py"], &sandbox.work()) > 0,
        "the cold run stores"
    );
    assert_eq!(written(&["plan", "k/a.py"], &sandbox.work()), 0);
    // Named absolutely, and relatively from below: the stamp of the first run vouches for
    // it (a file read again would get a stamp of its own written).
    let absolute = file.to_str().expect("utf-8");
    assert_eq!(written(&["plan", absolute], &sandbox.work()), 0);
    assert_eq!(written(&["plan", "a.py"], &sandbox.work().join("k")), 0);
}
