//! Measures the daemon on a generated tree (BENCHMARKS-daemon.md): the initial scan (cold
//! and with a warm store), resident memory after it, `memreuse query` on an unchanged
//! function, and edit-then-query latency. Every figure is the wall time of a real
//! `memreuse` process, start to exit, as a user would see it.
//!
//! `scripts/bench-daemon.sh` builds the release binaries and runs this:
//! `bench_daemon [--files 1000] [--functions 20] [--edits 50] [--queries 50]`
//!
//! With `--reconfigure`, it measures a configuration change instead: the initial scan with an
//! empty store under `backend = "910b"`, then the time until every file is planned again
//! after `memreuse.toml` lowers the Vec capacity by 1 KiB (a change that keeps nearly every
//! plan), both with the daemon's resident memory.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use memreuse_testgen::tree_gen::{TreeConfig, generate};
use serde_json::Value;

struct Bench {
    cli: PathBuf,
    daemon: PathBuf,
    root: PathBuf,
    state: PathBuf,
}

impl Bench {
    fn run(&self, args: &[&str]) -> (Duration, String) {
        let start = Instant::now();
        let out = Command::new(&self.cli)
            .arg("--state-dir")
            .arg(&self.state)
            .args(args)
            .current_dir(&self.root)
            .env("MEMREUSED", &self.daemon)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| fail(&format!("cannot run memreuse: {e}")));
        let took = start.elapsed();
        if !out.status.success() {
            fail(&format!(
                "memreuse {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        (took, String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn status(&self) -> Value {
        let (_, json) = self.run(&["daemon", "status", "--json"]);
        serde_json::from_str(&json).unwrap_or_else(|e| fail(&format!("bad status: {e}")))
    }

    /// Starts the daemon and waits for its initial scan; returns the time to that.
    fn start(&self) -> (Duration, Value) {
        let start = Instant::now();
        self.run(&["daemon", "start"]);
        loop {
            let status = self.status();
            if status["scan"]["finished"] == true {
                return (start.elapsed(), status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn main() {
    let mut files = 1000;
    let mut functions = 20;
    let mut edits = 50;
    let mut queries = 50;
    let mut reconfigure = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| fail(&format!("{arg} needs a number")))
        };
        match arg.as_str() {
            "--files" => files = value(),
            "--functions" => functions = value(),
            "--edits" => edits = value(),
            "--queries" => queries = value(),
            "--reconfigure" => reconfigure = true,
            other => fail(&format!("unknown argument '{other}'")),
        }
    }
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(&e.to_string()));
    // target/<profile>/examples/bench_daemon -> target/<profile>/
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| fail("unexpected executable location"));
    let dir = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let base = dir
        .path()
        .canonicalize()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let bench = Bench {
        cli: bin.join("memreuse"),
        daemon: bin.join("memreused"),
        root: base.join("root"),
        state: base.join("state"),
    };
    let cfg = TreeConfig {
        files,
        functions,
        ..TreeConfig::default()
    };
    let mut tree: Vec<(PathBuf, String)> = generate(&cfg).collect();
    for (path, text) in &tree {
        let path = bench.root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| fail(&e.to_string()));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| fail(&e.to_string()));
    }
    println!(
        "tree: {files} files x {functions} functions ({} kernels per file + main)",
        functions - 1
    );

    if reconfigure {
        measure_reconfigure(&bench);
        return;
    }

    let (cold, status) = bench.start();
    println!(
        "initial scan, empty store: {:.2} s ({} files, {} functions), RSS after it {:.1} MB",
        cold.as_secs_f64(),
        status["files"],
        status["functions"],
        status["rss_bytes"].as_f64().unwrap_or(0.0) / 1e6
    );
    bench.run(&["daemon", "stop"]);
    let (warm, status) = bench.start();
    let rss = status["rss_bytes"].as_u64().unwrap_or(0);
    let fns = status["functions"].as_u64().unwrap_or(1).max(1);
    println!("initial scan, warm store:  {:.2} s", warm.as_secs_f64());
    println!(
        "RSS after the initial scan: {:.1} MB ({} bytes per function)",
        rss as f64 / 1e6,
        rss / fns
    );
    println!(
        "store: {} entries, {:.1} MB on disk",
        status["store_entries"],
        status["store_bytes"].as_f64().unwrap_or(0.0) / 1e6
    );

    // Unchanged functions, spread over the tree.
    let mut times = Vec::new();
    for i in 0..queries {
        let (path, _) = &tree[(i * 7919) % tree.len()];
        let target = format!("{}::kernel_{}", path.display(), i % (functions - 1).max(1));
        times.push(bench.run(&["query", &target, "--json"]).0);
    }
    report("query, unchanged function", &mut times);

    // Edit one function (a load offset: new IR, so a real re-plan), then query it at once.
    let mut times = Vec::new();
    for i in 0..edits {
        let index = (i * 104_729) % tree.len();
        let (path, text) = &mut tree[index];
        let kernel = i % (functions - 1).max(1);
        let Some(edited) = edit(text, kernel, i) else {
            fail(&format!(
                "no load to edit in kernel_{kernel} of {}",
                path.display()
            ));
        };
        let target = format!("{}::kernel_{kernel}", path.display());
        let before = digest_of(&bench.run(&["query", &target, "--json"]).1);
        *text = edited;
        let start = Instant::now();
        std::fs::write(bench.root.join(&*path), &*text).unwrap_or_else(|e| fail(&e.to_string()));
        let (_, answer) = bench.run(&["query", &target, "--json"]);
        times.push(start.elapsed());
        if digest_of(&answer) == before {
            fail(&format!("edit {i}: the answer did not change ({target})"));
        }
    }
    report("edit, then query it (write to answer)", &mut times);
    let status = bench.status();
    println!(
        "after the edits: {} rescans, last error {}, RSS {:.1} MB",
        status["rescans"].as_array().map_or(0, Vec::len),
        status["last_error"],
        status["rss_bytes"].as_f64().unwrap_or(0.0) / 1e6
    );
    bench.run(&["daemon", "stop"]);
}

/// The initial scan under `backend = "910b"` with an empty store, then a Vec capacity change
/// through `memreuse.toml`, timed until no file waits to be planned.
fn measure_reconfigure(bench: &Bench) {
    let settings = bench.root.join("memreuse.toml");
    let write =
        |text: &str| std::fs::write(&settings, text).unwrap_or_else(|e| fail(&e.to_string()));
    write("backend = \"910b\"\n");
    let (cold, status) = bench.start();
    let functions = status["functions"].clone();
    println!(
        "initial scan, empty store, 910b: {:.2} s ({functions} functions), RSS after it {:.1} MB",
        cold.as_secs_f64(),
        status["rss_bytes"].as_f64().unwrap_or(0.0) / 1e6
    );
    let vec = 188_416 - 1024;
    let start = Instant::now();
    write(&format!("backend = \"910b\"\n[capacity]\nVec = {vec}\n"));
    let mut seen_pending = false;
    let status = loop {
        let status = bench.status();
        let applied = status["settings"]["capacities"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["space"] == "Vec" && c["bytes"] == vec));
        let pending = status["pending_files"].as_u64().unwrap_or(0);
        seen_pending |= applied && pending > 0;
        if applied && pending == 0 && (seen_pending || start.elapsed() > Duration::from_secs(5)) {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let after = start.elapsed();
    println!(
        "after Vec = {vec} in memreuse.toml: every file planned again in {:.2} s ({:.1}x faster than the initial scan), RSS {:.1} MB",
        after.as_secs_f64(),
        cold.as_secs_f64() / after.as_secs_f64(),
        status["rss_bytes"].as_f64().unwrap_or(0.0) / 1e6
    );
    bench.run(&["daemon", "stop"]);
}

/// `text` with the first tile load offset of `kernel_<kernel>` set to a value unique to
/// `edit`, so every edit is a new function (never a cache hit).
fn edit(text: &str, kernel: usize, edit: usize) -> Option<String> {
    let def = text.find(&format!("def kernel_{kernel}("))?;
    let load = def + text[def..].find("pl.tile.load(")?;
    let open = load + text[load..].find('[')? + 1;
    let comma = open + text[open..].find(',')?;
    let mut edited = text.to_string();
    edited.replace_range(open..comma, &(16 * (edit + 1000)).to_string());
    Some(edited)
}

fn digest_of(json: &str) -> String {
    let document: Value = serde_json::from_str(json).unwrap_or_default();
    document["files"][0]["functions"][0]["digest"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    println!(
        "{what}: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms over {}",
        at(0.5),
        at(0.95),
        at(1.0),
        times.len()
    );
}

fn fail(message: &str) -> ! {
    eprintln!("bench_daemon: {message}");
    std::process::exit(1)
}
