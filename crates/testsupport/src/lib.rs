//! What memreuse's end-to-end tests share: [`Project`], a temporary project root and state
//! dir in which a test drives the `memreuse` CLI (and the daemons it starts, killed when the
//! project is dropped), the real kernel dumps ([`real_dumps`]), and small helpers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use memreuse_ir::LineIndex;
use memreuse_ir::backend::Backend;
use memreuse_ir::diagnostics::Diagnostic;
use memreuse_testgen::tree_gen::{TreeConfig, generate};
use serde_json::Value;

/// A diagnostic as snapshots show it: `first` (its located line), then a line per note and
/// its hint, indented.
pub fn with_notes(
    first: &str,
    d: &Diagnostic,
    file: &str,
    text: &str,
    lines: &LineIndex,
) -> String {
    let mut out = format!("{first}\n");
    for note in d.related_lines(file, text, lines) {
        out.push_str(&format!("    {note}\n"));
    }
    if let Some(hint) = &d.hint {
        out.push_str(&format!("    hint: {hint}\n"));
    }
    out
}

/// One program of the real kernel dumps: PyPTO's program as it enters MemoryReuse (`input`)
/// and upstream's plan of it (`output`), for `backend`.
pub struct RealDump {
    pub kernel: String,
    pub backend: Backend,
    pub input: PathBuf,
    pub output: PathBuf,
}

/// The real kernel dumps, as their MANIFEST lists them, and their directory:
/// `../shared/conformance/real` beside the clone at `repo` (CI has it), else the subset
/// bundled in `tests/data/real` (which is said on stderr).
pub fn real_dumps(repo: &Path) -> (PathBuf, Vec<RealDump>) {
    let (root, rows) = manifest(repo, "real");
    let dumps = rows
        .iter()
        .map(|row| RealDump {
            kernel: row.cell("kernel").to_string(),
            backend: row.backend(),
            input: root.join(row.cell("before")),
            output: root.join(row.cell("after")),
        })
        .collect();
    (root, dumps)
}

/// A corpus of real dumps and its MANIFEST's rows: `../shared/conformance/<name>` beside the
/// clone at `repo` (CI has it), else the subset bundled in `tests/data/<name>` (which is said
/// on stderr).
pub fn manifest(repo: &Path, name: &str) -> (PathBuf, Vec<ManifestRow>) {
    let shared = repo.join("../shared/conformance").join(name);
    let root = if shared.join("MANIFEST.tsv").is_file() {
        shared
    } else {
        eprintln!(
            "no {name} dumps at {} (../shared is not beside the clone): running the bundled subset in tests/data/{name}",
            shared.display()
        );
        repo.join("tests/data").join(name)
    };
    let rows = manifest_rows(&root);
    (root, rows)
}

/// The rows of the MANIFEST.tsv in `dir` (its first line names the columns).
pub fn manifest_rows(dir: &Path) -> Vec<ManifestRow> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("a manifest");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    lines
        .filter(|line| !line.trim().is_empty())
        .map(|line| ManifestRow {
            cells: header
                .iter()
                .zip(line.split('\t'))
                .map(|(column, cell)| (column.to_string(), cell.to_string()))
                .collect(),
        })
        .collect()
}

/// One row of a MANIFEST: its cells by column name.
pub struct ManifestRow {
    cells: HashMap<String, String>,
}

impl ManifestRow {
    /// The cell of `column`; a column the manifest lacks fails the test.
    pub fn cell(&self, column: &str) -> &str {
        self.cells
            .get(column)
            .unwrap_or_else(|| panic!("the manifest has no column {column}"))
    }

    /// The backend the row's `backend` column names.
    pub fn backend(&self) -> Backend {
        let name = self.cell("backend");
        Backend::from_name(&name.to_lowercase()).unwrap_or_else(|| panic!("unknown backend {name}"))
    }
}

/// A process's output as text, for messages and comparisons.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Waits until `done`, checking every 20 ms; fails the test after `limit`.
pub fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The `memreuse` CLI beside the daemon binary `daemon` (cargo builds every binary of the
/// workspace into one directory).
pub fn cli_beside(daemon: &str) -> PathBuf {
    let exe = Path::new(daemon).with_file_name("memreuse");
    assert!(
        exe.is_file(),
        "{} is missing: build the CLI too (`cargo test --workspace` does)",
        exe.display()
    );
    exe
}

/// `(function, digest)` of every planned function in a `plan --emit json` or `query --json`
/// document.
pub fn plan_digests(json: &str) -> Vec<(String, String)> {
    let document: Value = serde_json::from_str(json).expect("plan JSON");
    let mut found = Vec::new();
    for file in document["files"].as_array().expect("files") {
        for f in file["functions"].as_array().expect("functions") {
            found.push((
                f["name"].as_str().expect("name").to_string(),
                f["digest"].as_str().expect("digest").to_string(),
            ));
        }
    }
    found
}

/// `files` generated kernel files of `functions` functions each: `(relative path, text)`.
pub fn kernels(files: usize, functions: usize, seed: u64) -> Vec<(String, String)> {
    let config = TreeConfig {
        files,
        functions,
        tiles: 4..=10,
        seed,
    };
    generate(&config)
        .map(|(path, text)| (path.to_string_lossy().into_owned(), text))
        .collect()
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid only reads the process's credentials.
    unsafe { libc::geteuid() == 0 }
}

/// A temporary project: a root the CLI runs in and a state dir outside it. Every daemon
/// serving the state dir is killed when it is dropped, pass or fail;
/// `MEMREUSE_TEST_KEEP=1` keeps the directories (and the daemons' logs) for a look.
pub struct Project {
    dir: tempfile::TempDir,
    pub root: PathBuf,
    pub state: PathBuf,
    cli: PathBuf,
    daemon: PathBuf,
}

impl Project {
    /// A project whose commands run `memreuse` beside `daemon`, the path of `memreused`.
    pub fn new(daemon: &str) -> Project {
        Project::with_state(daemon, "state")
    }

    /// The same with the state dir at `relative` below the test's directory.
    pub fn with_state(daemon: &str, relative: &str) -> Project {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().canonicalize().expect("canonical temp dir");
        let root = base.join("root");
        let state = base.join(relative);
        std::fs::create_dir_all(&root).expect("root");
        Project {
            dir,
            root,
            state,
            cli: cli_beside(daemon),
            daemon: PathBuf::from(daemon),
        }
    }

    /// The test's directory, holding the root and the state dir.
    pub fn base(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical")
    }

    /// `memreuse ARGS` in the root, on the project's state dir and daemon binary.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.cli);
        command
            .arg("--state-dir")
            .arg(&self.state)
            .args(args)
            .current_dir(&self.root)
            .env("MEMREUSED", &self.daemon)
            .env_remove("MEMREUSE_STATE_DIR")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("BROWSER")
            // The summary's width: 80 columns in a pipe unless `COLUMNS` says otherwise.
            .env_remove("COLUMNS")
            // Sockets of deep state dirs go below the temp dir: keep them in the test's.
            .env("TMPDIR", self.base())
            .stdin(Stdio::null());
        command
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("memreuse runs")
    }

    /// Runs and expects success; its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "memreuse {args:?} failed ({}):\n{}\n{}",
            out.status,
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    /// Writes a file below the root, making its directories.
    pub fn write(&self, relative: &str, contents: &str) {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    }

    /// One generated kernel file in the root; its relative path.
    pub fn kernel(&self, seed: u64) -> String {
        let (path, source) = kernels(1, 2, seed).remove(0);
        self.write(&path, &source);
        path
    }

    /// Replaces a file at once (a temporary file renamed over it), as editors save: a reader
    /// sees the old text or the new, never a part.
    pub fn replace(&self, relative: &str, contents: &str) {
        let path = self.root.join(relative);
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, contents).expect("write");
        std::fs::rename(&tmp, &path).expect("rename");
    }

    /// The digests of a file's functions planned cold in-process without any cache.
    pub fn cold_digests(&self, relative: &str) -> Vec<(String, String)> {
        plan_digests(&self.ok(&["plan", relative, "--emit", "json", "--no-cache"]))
    }

    /// The pids of live `memreused` processes serving this state dir.
    pub fn daemons(&self) -> Vec<i32> {
        let needle = self.state.to_string_lossy().into_owned();
        let mut pids = Vec::new();
        for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
                continue;
            };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let zombie = std::fs::read_to_string(entry.path().join("stat"))
                .is_ok_and(|s| s.split_whitespace().nth(2) == Some("Z"));
            if !zombie && cmdline.contains("memreused") && cmdline.contains(&needle) {
                pids.push(pid);
            }
        }
        pids
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        for pid in self.daemons() {
            // SAFETY: sends a signal to a daemon this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        if std::env::var_os("MEMREUSE_TEST_KEEP").is_some() {
            eprintln!("kept {}", self.root.display());
            self.dir.disable_cleanup(true);
        }
    }
}
