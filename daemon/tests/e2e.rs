//! End-to-end tests of `memreused` driven through the real `memreuse` binary: each test has
//! a fresh temporary root and state dir, edits files underneath a running daemon, and kills
//! every daemon it started when it ends (a Drop guard), pass or fail.
//!
//! The CLI is found beside `memreused` in the target dir (`cargo test --workspace` builds
//! both).

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use memreuse_test_support::{Project, kernels, plan_digests, text, wait_until};
use serde_json::Value;

const DAEMON: &str = env!("CARGO_BIN_EXE_memreused");

/// What these tests ask of a project beyond the shared harness.
trait DaemonProject {
    /// Starts `memreused` itself (not through the CLI) with `args`, and waits for it.
    fn start_daemon(&self, args: &[&str]) -> std::process::Child;
    fn status(&self) -> Value;
    fn info(&self) -> Option<Value>;
    /// The digests of a file's planned functions, by name, as the daemon answers them.
    fn query_digests(&self, target: &str) -> Vec<(String, String)>;
}

impl DaemonProject for Project {
    fn start_daemon(&self, args: &[&str]) -> std::process::Child {
        let child = Command::new(DAEMON)
            .arg("--root")
            .arg(&self.root)
            .arg("--state-dir")
            .arg(&self.state)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start memreused");
        wait_until("the daemon to listen", Duration::from_secs(30), || {
            self.info().is_some()
        });
        child
    }

    fn status(&self) -> Value {
        serde_json::from_str(&self.ok(&["daemon", "status", "--json"])).expect("status JSON")
    }

    fn info(&self) -> Option<Value> {
        let bytes = std::fs::read(self.state.join("daemon.json")).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn query_digests(&self, target: &str) -> Vec<(String, String)> {
        plan_digests(&self.ok(&["query", target, "--json"]))
    }
}

#[test]
fn eight_concurrent_first_queries_start_exactly_one_daemon() {
    let env = Project::new(DAEMON);
    let (path, source) = kernels(1, 2, 1).remove(0);
    env.write(&path, &source);
    let children: Vec<_> = (0..8)
        .map(|_| {
            env.command(&["query", &path, "--json"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    for out in &outputs {
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(plan_digests(&text(&out.stdout)), env.cold_digests(&path));
    }
    assert_eq!(env.daemons().len(), 1, "exactly one daemon runs");
    let logs = std::fs::read_dir(env.state.join("logs")).expect("logs");
    let started: usize = logs
        .flatten()
        .map(|e| {
            let log = std::fs::read_to_string(e.path()).unwrap_or_default();
            log.matches("listening").count()
        })
        .sum();
    assert_eq!(started, 1, "one daemon ever listened");
}

#[test]
fn a_write_is_always_seen_by_the_next_query() {
    let env = Project::new(DAEMON);
    let variants: Vec<String> = (0..2)
        .map(|seed| kernels(1, 2, 10 + seed).remove(0).1)
        .collect();
    let path = "k/kernel.py";
    let mut expected = Vec::new();
    for variant in &variants {
        env.write(path, variant);
        expected.push(env.cold_digests(path));
    }
    assert_ne!(expected[0], expected[1], "the variants plan differently");
    env.ok(&["daemon", "start"]);
    for i in 0..100 {
        env.write(path, &variants[i % 2]);
        assert_eq!(
            env.query_digests(path),
            expected[i % 2],
            "stale answer after write {i}"
        );
    }
}

#[test]
fn an_atomic_save_through_a_rename_is_seen() {
    let env = Project::new(DAEMON);
    let variants: Vec<String> = (0..2)
        .map(|seed| kernels(1, 1, 20 + seed).remove(0).1)
        .collect();
    let path = "k/kernel.py";
    let mut expected = Vec::new();
    for variant in &variants {
        env.write(path, variant);
        expected.push(env.cold_digests(path));
    }
    env.ok(&["daemon", "start"]);
    for i in 0..6 {
        // What editors do: write a temporary file beside it, then rename it over.
        let tmp = env.root.join("k/.kernel.py.swp");
        std::fs::write(&tmp, &variants[i % 2]).expect("write");
        std::fs::rename(&tmp, env.root.join(path)).expect("rename");
        assert_eq!(env.query_digests(path), expected[i % 2], "after save {i}");
    }
}

#[test]
fn a_tree_larger_than_a_planning_pause_is_planned_whole() {
    // More files than one planning run computes before the daemon compacts and resumes
    // (`PAUSE_AFTER` in the writer), so the scan pauses and resumes at least twice.
    let env = Project::new(DAEMON);
    let files = kernels(150, 2, 41);
    for (path, text) in &files {
        env.write(path, text);
    }
    let mut daemon = env.start_daemon(&[]);
    wait_until("the initial scan", Duration::from_secs(120), || {
        let status = env.status();
        status["scan"]["finished"] == true && status["pending_files"] == 0
    });
    let status = env.status();
    assert_eq!(status["files"], 150, "{status:#}");
    assert_eq!(status["scan"]["done"], 150, "{status:#}");
    let cold = env.cold_digests(".");
    assert!(cold.len() >= 150, "{}", cold.len());
    assert_eq!(
        status["functions"],
        cold.len(),
        "every file planned: {status:#}"
    );
    for (path, _) in files.iter().step_by(37) {
        assert_eq!(env.query_digests(path), env.cold_digests(path), "{path}");
    }
    env.ok(&["daemon", "stop"]);
    daemon.wait().expect("the daemon exits");
}

#[test]
fn a_storm_of_5000_files_converges_to_a_cold_run() {
    let env = Project::new(DAEMON);
    env.write("seed/a.py", &kernels(1, 1, 30).remove(0).1);
    // A lower storm threshold than the default 10,000 events, so that a loaded machine that
    // writes slowly still makes a storm.
    let mut daemon = env.start_daemon(&["--storm-events", "2000"]);
    // A checkout that creates 5,000 files, then one that rewrites them all.
    for (path, text) in &kernels(5000, 1, 31) {
        env.write(path, text);
    }
    let files = kernels(5000, 1, 32);
    for (path, text) in &files {
        env.write(path, text);
    }
    // Any query waits for every change made before it.
    let probe = &files[files.len() - 1].0;
    assert_eq!(env.query_digests(probe), env.cold_digests(probe));
    let status = env.status();
    assert_eq!(status["files"], 5001, "{status:#}");
    let rescans = status["rescans"].as_array().expect("rescans");
    assert!(!rescans.is_empty(), "a storm triggers a rescan: {status:#}");
    for (path, _) in files.iter().step_by(250) {
        assert_eq!(env.query_digests(path), env.cold_digests(path), "{path}");
    }
    env.ok(&["daemon", "stop"]);
    daemon.wait().expect("the daemon exits");
}

#[test]
fn a_daemon_killed_mid_scan_is_restarted_by_the_next_query_with_its_store() {
    let env = Project::new(DAEMON);
    let files = kernels(300, 4, 40);
    for (path, text) in &files {
        env.write(path, text);
    }
    env.ok(&["daemon", "start"]);
    let pid = env.info().expect("daemon.json")["pid"]
        .as_i64()
        .expect("pid");
    // SAFETY: the daemon this test started.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    wait_until("the killed daemon to go", Duration::from_secs(10), || {
        !env.daemons().contains(&(pid as i32))
    });
    let (path, _) = &files[7];
    assert_eq!(env.query_digests(path), env.cold_digests(path));
    let status = env.status();
    assert_ne!(status["pid"].as_i64(), Some(pid), "a new daemon answers");
    let aside = std::fs::read_dir(&env.state)
        .expect("state dir")
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("cache.bad"));
    assert!(!aside, "the store survived the kill");
    assert_eq!(status["last_error"], Value::Null, "{status:#}");
}

#[test]
fn a_daemon_of_another_build_is_replaced() {
    let env = Project::new(DAEMON);
    let (path, source) = kernels(1, 1, 50).remove(0);
    env.write(&path, &source);
    let mut old = env.start_daemon(&["--build-id", "an-older-build"]);
    assert_eq!(env.query_digests(&path), env.cold_digests(&path));
    let exited = old.wait().expect("the old daemon exits");
    assert!(exited.success(), "it was stopped cleanly: {exited}");
    let status = env.status();
    assert_ne!(status["pid"].as_i64(), Some(i64::from(old.id())));
    assert_ne!(status["build_id"], "an-older-build");
}

#[test]
fn a_stale_socket_and_daemon_json_are_replaced() {
    let env = Project::new(DAEMON);
    let (path, source) = kernels(1, 1, 60).remove(0);
    env.write(&path, &source);
    std::fs::create_dir_all(&env.state).expect("state dir");
    let socket = env.state.join("daemon.sock");
    // A socket file nobody listens on, as a killed daemon leaves it.
    drop(std::os::unix::net::UnixListener::bind(&socket).expect("bind"));
    let stale = serde_json::json!({
        "pid": 999_999_999u32, "instance": "gone", "socket": socket, "root": env.root,
        "protocol": 1, "build_id": "gone", "started": 0,
    });
    std::fs::write(env.state.join("daemon.json"), stale.to_string()).expect("write");
    assert_eq!(env.query_digests(&path), env.cold_digests(&path));
    let info = env.info().expect("daemon.json");
    assert_ne!(info["instance"], "gone");
    assert_eq!(
        env.daemons(),
        vec![info["pid"].as_i64().expect("pid") as i32]
    );
}

#[test]
fn the_socket_is_private_and_stop_cleans_up() {
    let env = Project::new(DAEMON);
    env.ok(&["daemon", "start"]);
    let socket = env.state.join("daemon.sock");
    let mode = std::fs::metadata(&socket)
        .expect("socket")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let stopped = env.ok(&["daemon", "stop"]);
    assert!(stopped.contains("stopped"), "{stopped}");
    assert!(!socket.exists());
    assert!(env.info().is_none());
    wait_until("the daemon to exit", Duration::from_secs(5), || {
        env.daemons().is_empty()
    });
    let status = env.run(&["daemon", "status"]);
    assert_eq!(status.status.code(), Some(3), "no daemon: exit 3");
}

#[test]
fn a_path_outside_the_root_is_refused() {
    let env = Project::new(DAEMON);
    let outside = env.state.parent().expect("base").join("outside.py");
    std::fs::write(&outside, kernels(1, 1, 70).remove(0).1).expect("write");
    let out = env.run(&["query", outside.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("outside the workspace root"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_broken_file_gets_diagnostics_others_are_served_and_fixing_clears_them() {
    let env = Project::new(DAEMON);
    let good = kernels(2, 1, 80);
    env.write("a.py", &good[0].1);
    env.write("b.py", &good[1].1);
    env.ok(&["daemon", "start"]);
    env.write("a.py", &format!("{}\n  x = (\n", good[0].1));
    let broken = env.run(&["query", "a.py"]);
    assert_eq!(broken.status.code(), Some(1));
    let stderr = text(&broken.stderr);
    assert!(stderr.contains("a.py:"), "located diagnostics: {stderr}");
    assert_eq!(env.query_digests("b.py"), env.cold_digests("b.py"));
    env.write("a.py", &good[0].1);
    assert_eq!(env.query_digests("a.py"), env.cold_digests("a.py"));
    let status = env.status();
    assert_eq!(status["pid"], env.info().expect("daemon.json")["pid"]);
}

#[test]
fn moved_directories_and_deleted_files_are_followed() {
    let env = Project::new(DAEMON);
    let files = kernels(3, 1, 90);
    env.write("in/a.py", &files[0].1);
    env.ok(&["daemon", "start"]);
    // A directory prepared elsewhere and moved in, one moved out, one file deleted.
    let staging = env.state.parent().expect("base").join("staging");
    std::fs::create_dir_all(staging.join("deep")).expect("mkdir");
    std::fs::write(staging.join("deep/b.py"), &files[1].1).expect("write");
    std::fs::rename(&staging, env.root.join("moved")).expect("move in");
    assert_eq!(
        env.query_digests("moved/deep/b.py"),
        env.cold_digests("moved/deep/b.py")
    );
    std::fs::rename(env.root.join("moved"), &staging).expect("move out");
    env.write("in/c.py", &files[2].1);
    std::fs::remove_file(env.root.join("in/a.py")).expect("delete");
    env.ok(&["query", "in/c.py"]);
    let status = env.status();
    assert_eq!(status["files"], 1, "{status:#}");
    // Files created in the directory after it moved in are seen too.
    std::fs::rename(&staging, env.root.join("again")).expect("move in again");
    env.write("again/deep/d.py", &files[0].1);
    assert_eq!(
        env.query_digests("again/deep/d.py"),
        env.cold_digests("again/deep/d.py")
    );
}

#[test]
fn ignored_directories_are_not_watched_or_served() {
    let env = Project::new(DAEMON);
    let files = kernels(2, 1, 100);
    env.write(".gitignore", "build/\n");
    env.write("k/a.py", &files[0].1);
    env.write("build/b.py", &files[1].1);
    env.ok(&["daemon", "start"]);
    env.ok(&["query", "k/a.py"]);
    let status = env.status();
    assert_eq!(status["files"], 1);
    assert_eq!(status["watches"], 2, "the root and k/: {status:#}");
    let out = env.run(&["query", "build/b.py"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn in_process_queries_agree_with_the_daemon() {
    let env = Project::new(DAEMON);
    let (path, source) = kernels(1, 3, 110).remove(0);
    env.write(&path, &source);
    let alone = env.ok(&["query", &path, "--no-daemon", "--json"]);
    assert!(env.daemons().is_empty(), "--no-daemon starts none");
    let served = env.ok(&["query", &path, "--json"]);
    assert_eq!(plan_digests(&alone), plan_digests(&served));
    let kernel = &plan_digests(&alone)[0].0;
    assert_ne!(kernel, "main", "InCore kernels come first");
    let summary = env.ok(&["query", &format!("{path}::{kernel}")]);
    // In a pipe the summary is 80 columns wide: the name on a line of its own.
    assert!(summary.contains(&format!("\n  {kernel}\n")), "{summary}");
    let missing = env.run(&["query", &format!("{path}::nope")]);
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn an_idle_daemon_stops_by_itself() {
    let env = Project::new(DAEMON);
    env.ok(&["daemon", "start", "--idle-timeout", "1"]);
    assert!(env.info().is_some());
    wait_until("the idle daemon to stop", Duration::from_secs(10), || {
        env.info().is_none() && env.daemons().is_empty()
    });
}

#[test]
fn bad_peers_do_not_stop_the_daemon() {
    let env = Project::new(DAEMON);
    env.ok(&["daemon", "start"]);
    let socket = env.state.join("daemon.sock");
    let mut peer = std::os::unix::net::UnixStream::connect(&socket).expect("connect");
    peer.write_all(b"this is not json\n").expect("write");
    let mut long = std::os::unix::net::UnixStream::connect(&socket).expect("connect");
    // More than a request may hold; the daemon answers and hangs up.
    let _ = long.write_all(&vec![b'x'; 200 * 1024]);
    drop(peer);
    drop(long);
    let status = env.status();
    assert!(status["pid"].is_number());
}

#[test]
fn the_daemon_reads_memreuse_toml_and_gitignore_again_when_they_change() {
    let env = Project::new(DAEMON);
    let files = kernels(2, 1, 120);
    env.write("k/a.py", &files[0].1);
    env.write("build/b.py", &files[1].1);
    env.ok(&["daemon", "start"]);
    let answer = |path: &str| -> Value {
        serde_json::from_str(&env.ok(&["query", path, "--json"])).expect("query JSON")
    };
    assert_eq!(answer("k/a.py")["backend"], "none");
    let status = env.status();
    assert_eq!(status["watch_backend"], "inotify", "{status:#}");
    assert_eq!(status["settings"]["file"], Value::Null, "{status:#}");

    // A new memreuse.toml: the next query plans with it, and status says so.
    env.write(
        "memreuse.toml",
        "backend = \"910b\"\n[capacity]\nVec = 65536\n",
    );
    let planned = answer("k/a.py");
    assert_eq!(planned["backend"], "910b", "{planned:#}");
    let vec_space = planned["files"][0]["functions"][0]["spaces"]
        .as_array()
        .expect("spaces")
        .iter()
        .find(|s| s["space"] == "Vec")
        .cloned()
        .expect("a Vec space");
    assert_eq!(vec_space["capacity"], 65536, "{vec_space:#}");
    let status = env.status();
    assert_eq!(status["backend"], "910b");
    assert_eq!(
        status["settings"]["file"],
        env.root.join("memreuse.toml").display().to_string()
    );
    assert!(
        status["settings"]["capacities"]
            .as_array()
            .expect("capacities")
            .iter()
            .any(|c| c["space"] == "Vec" && c["bytes"] == 65536),
        "{status:#}"
    );
    let shown = env.ok(&["daemon", "status"]);
    assert!(shown.contains("Vec 64.0 KiB"), "{shown}");
    assert!(shown.contains("(inotify)"), "{shown}");

    // A broken one is not taken: the settings before stay, and status says why.
    env.write("memreuse.toml", "backend = \"h100\"\n");
    assert_eq!(answer("k/a.py")["backend"], "910b");
    let error = env.status()["settings"]["error"].clone();
    assert!(
        error.as_str().is_some_and(|e| e.contains("h100")),
        "{error:#}"
    );

    // A .gitignore written, then removed: what it excludes leaves, then comes back.
    assert_eq!(env.status()["files"], 2);
    env.write(".gitignore", "build/\n");
    let refused = env.run(&["query", "build/b.py"]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert_eq!(env.status()["files"], 1);
    std::fs::remove_file(env.root.join(".gitignore")).expect("remove");
    assert_eq!(answer("build/b.py")["files"][0]["status"], "planned");
    assert_eq!(env.status()["files"], 2);
}
