//! The daemon and its clients on a hostile machine: other users squatting the socket, files
//! that no one may read, special files in the tree, connection floods, damaged caches.
//!
//! Like `e2e.rs`, every test has a fresh root and state dir and kills the daemons it started.
//! Tests that need a second user (a listener running as `nobody`) re-run this binary as that
//! user, which only root can do; as another user they check what they can and say so.

use std::io::{BufRead as _, BufReader, Write as _};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use memreuse::tree_gen::{TreeConfig, generate};
use memreuse_daemon::protocol::{Answer, Body, Hello, PROTOCOL_VERSION, Response};
use serde_json::Value;

const DAEMON: &str = env!("CARGO_BIN_EXE_memreused");
/// Set when this binary runs as the squatter: the socket path to listen on.
const SQUATTER_ENV: &str = "MEMREUSE_TEST_SQUATTER";
/// `nobody` on most systems.
const OTHER_UID: u32 = 65534;

fn cli_exe() -> PathBuf {
    let exe = Path::new(DAEMON).with_file_name("memreuse");
    assert!(
        exe.is_file(),
        "{} is missing: build the CLI too",
        exe.display()
    );
    exe
}

struct Env {
    dir: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
}

impl Env {
    fn new() -> Env {
        Env::with_state("state")
    }

    /// A state dir at `relative` below the test's directory.
    fn with_state(relative: &str) -> Env {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().canonicalize().expect("canonical temp dir");
        let root = base.join("root");
        let state = base.join(relative);
        std::fs::create_dir_all(&root).expect("root");
        Env { dir, root, state }
    }

    fn base(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(cli_exe());
        command
            .arg("--state-dir")
            .arg(&self.state)
            .args(args)
            .current_dir(&self.root)
            .env("MEMREUSED", DAEMON)
            .env_remove("MEMREUSE_STATE_DIR")
            .env_remove("XDG_RUNTIME_DIR")
            // Sockets of deep state dirs go below the temp dir: keep them in the test's.
            .env("TMPDIR", self.base())
            .stdin(Stdio::null());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("memreuse runs")
    }

    fn ok(&self, args: &[&str]) -> String {
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

    fn write(&self, relative: &str, contents: &str) {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    }

    /// One generated kernel file in the root; its relative path.
    fn kernel(&self, seed: u64) -> String {
        let (path, source) = kernels(1, 2, seed).remove(0);
        self.write(&path, &source);
        path
    }

    fn daemons(&self) -> Vec<i32> {
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

    fn cold_digests(&self, relative: &str) -> Vec<(String, String)> {
        digests(&self.ok(&["plan", relative, "--emit", "json", "--no-cache"]))
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        for pid in self.daemons() {
            // SAFETY: sends a signal to a daemon this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn digests(json: &str) -> Vec<(String, String)> {
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

fn kernels(files: usize, functions: usize, seed: u64) -> Vec<(String, String)> {
    let cfg = TreeConfig {
        files,
        functions,
        tiles: 4..=10,
        seed,
    };
    generate(&cfg)
        .map(|(path, text)| (path.to_string_lossy().into_owned(), text))
        .collect()
}

fn is_root() -> bool {
    // SAFETY: geteuid only reads the process's credentials.
    unsafe { libc::geteuid() == 0 }
}

/// What a squatter answers to every request: a convincing handshake for `root`, then a
/// forged plan.
fn forged(root: &Path, line: &str) -> Vec<u8> {
    let body = if line.contains("\"hello\"") {
        Body::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            build_id: memreuse_daemon::layout::build_id(Path::new(DAEMON)).expect("build id"),
            pid: std::process::id(),
            root: root.to_path_buf(),
        })
    } else {
        Body::Query(Answer {
            document: Some(serde_json::json!({"files": [{"functions": [
                {"name": "forged", "digest": "forged"}]}]})),
            ..Answer::default()
        })
    };
    let response = Response {
        instance: "squatter".into(),
        revision: 1,
        body,
    };
    memreuse_daemon::protocol::to_line(&response)
}

/// Serves forged answers on `listener` until the process ends; counts connections.
fn squat(
    listener: std::os::unix::net::UnixListener,
    root: PathBuf,
) -> std::sync::mpsc::Receiver<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = tx.send(());
            let root = root.clone();
            std::thread::spawn(move || {
                let mut writer = stream.try_clone().expect("clone");
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { return };
                    if writer.write_all(&forged(&root, &line)).is_err() {
                        return;
                    }
                }
            });
        }
    });
    rx
}

/// The squatter process: run as another user by [`a_listener_of_another_user_is_refused`].
#[test]
fn squatter() {
    let Some(socket) = std::env::var_os(SQUATTER_ENV) else {
        return;
    };
    let root = PathBuf::from(std::env::var_os("MEMREUSE_TEST_ROOT").expect("root"));
    let listener = std::os::unix::net::UnixListener::bind(&socket).expect("squatter binds");
    println!("listening");
    let _connections = squat(listener, root);
    std::thread::sleep(Duration::from_secs(60));
}

/// Before, a state dir too deep for a socket put it at `<tmp>/memreuse-<digest>.sock`,
/// where anyone could listen first and be trusted.
#[test]
fn a_listener_on_the_old_shared_temp_path_is_never_asked() {
    let deep = format!("state/{}", "d".repeat(100));
    let env = Env::with_state(&deep);
    let path = env.kernel(1);
    // The old path, under the temp dir the CLI sees.
    let digest = blake3::hash(env.state.as_os_str().as_encoded_bytes()).to_hex();
    let old = env.base().join(format!("memreuse-{}.sock", &digest[..16]));
    let listener = std::os::unix::net::UnixListener::bind(&old).expect("bind the old path");
    let connections = squat(listener, env.root.clone());
    let answered = digests(&env.ok(&["query", &path, "--json"]));
    assert_eq!(
        answered,
        env.cold_digests(&path),
        "the real daemon answered"
    );
    assert!(
        connections.try_recv().is_err(),
        "nobody connected to the squatted path"
    );
    // SAFETY: geteuid only reads the process's credentials.
    let private = env
        .base()
        .join(format!("memreuse-{}", unsafe { libc::geteuid() }));
    let dir = std::fs::symlink_metadata(&private).expect("the per-user socket dir");
    assert_eq!(dir.mode() & 0o777, 0o700);
    assert!(private.join(format!("{}.sock", &digest[..16])).exists());
}

/// A socket in the right place, but bound by another user: its answers are refused.
#[test]
fn a_listener_of_another_user_is_refused() {
    if !is_root() {
        eprintln!("not root: cannot run a listener as another user; checked by unit tests only");
        return;
    }
    let env = Env::new();
    let path = env.kernel(2);
    std::fs::create_dir_all(&env.state).expect("state");
    // The squatter binds in a directory of its own; the socket is then moved where the
    // client looks (a socket keeps its binder's credentials wherever its name goes).
    // The squatter must reach its directory through the test's.
    std::fs::set_permissions(env.base(), std::fs::Permissions::from_mode(0o711)).expect("chmod");
    let theirs = env.base().join("theirs");
    std::fs::create_dir(&theirs).expect("dir");
    std::os::unix::fs::chown(&theirs, Some(OTHER_UID), Some(OTHER_UID)).expect("chown");
    let socket = theirs.join("s.sock");
    let mut squatter = Command::new(std::env::current_exe().expect("test exe"))
        .args(["--exact", "squatter", "--nocapture", "--test-threads=1"])
        .env(SQUATTER_ENV, &socket)
        .env("MEMREUSE_TEST_ROOT", &env.root)
        .uid(OTHER_UID)
        .gid(OTHER_UID)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the squatter");
    let mut ready = String::new();
    let mut out = BufReader::new(squatter.stdout.take().expect("stdout"));
    while !ready.contains("listening") {
        ready.clear();
        assert!(
            out.read_line(&mut ready).expect("read") > 0,
            "the squatter failed"
        );
    }
    std::fs::rename(&socket, env.state.join("daemon.sock")).expect("move the socket");
    let out = env.run(&["query", &path, "--json"]);
    let _ = squatter.kill();
    let _ = squatter.wait();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "refused: {stderr}");
    assert!(
        !text(&out.stdout).contains("forged"),
        "nothing forged printed"
    );
    assert!(
        stderr.contains(&format!("runs as uid {OTHER_UID}")),
        "says why: {stderr}"
    );
}

/// A state dir owned by someone else is refused before any connection.
#[test]
fn a_state_dir_of_another_user_is_refused() {
    if !is_root() {
        eprintln!("not root: cannot give a directory to another user");
        return;
    }
    let env = Env::new();
    let path = env.kernel(3);
    std::fs::create_dir_all(&env.state).expect("state");
    std::os::unix::fs::chown(&env.state, Some(OTHER_UID), Some(OTHER_UID)).expect("chown");
    let out = env.run(&["query", &path]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("not private to this user") && stderr.contains("owned by uid"),
        "{stderr}"
    );
    assert!(env.daemons().is_empty(), "no daemon started");
}

/// Everything under the state dir is for this user only, even under umask 000.
#[test]
fn state_files_are_private_whatever_the_umask() {
    let env = Env::new();
    let path = env.kernel(4);
    let with_umask = |args: &[&str]| {
        let mut command = env.command(args);
        // SAFETY: umask is async-signal-safe and only changes the child's mask.
        unsafe {
            command.pre_exec(|| {
                libc::umask(0);
                Ok(())
            });
        }
        let out = command.output().expect("runs");
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    };
    with_umask(&["plan", &path]);
    with_umask(&["query", &path]);
    with_umask(&["daemon", "stop"]);
    let mut loose = Vec::new();
    let mut stack = vec![env.state.clone()];
    while let Some(dir) = stack.pop() {
        let meta = std::fs::symlink_metadata(&dir).expect("meta");
        if meta.mode() & 0o077 != 0 {
            loose.push(format!("{} {:o}", dir.display(), meta.mode() & 0o777));
        }
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let meta = entry.metadata().expect("meta");
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.mode() & 0o077 != 0 {
                loose.push(format!(
                    "{} {:o}",
                    entry.path().display(),
                    meta.mode() & 0o777
                ));
            }
        }
    }
    assert!(loose.is_empty(), "not private: {loose:#?}");
    let mode = std::fs::metadata(&env.state)
        .expect("state")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
}
