//! What a command names: the daemon of a project (its root, state dir and how to start it)
//! and a file or function below the root.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use memreuse_daemon_client::client::{self, Connection, Launch};
use memreuse_daemon_client::state_dir::{StatePaths, build_id};

use crate::exit::{Unavailable, UsageError};
use crate::state;

/// The daemon this command talks to: its root, state dir and how to start it.
pub struct Target {
    pub root: PathBuf,
    pub launch: Launch,
}

/// How long to wait for a daemon to answer after starting it, or to stop.
pub const WAIT: Duration = Duration::from_secs(60);

impl Target {
    /// The daemon of the project at `root` (default: the project the current directory is
    /// in). Nothing is created: a command that only reads works on a read-only state dir.
    pub fn new(root: Option<&Path>, state_dir: Option<&Path>) -> Result<Target> {
        let root = match root {
            Some(root) => root.canonicalize().map_err(|err| {
                UsageError(format!("cannot open the root {}: {err}", root.display()))
            })?,
            None => crate::settings::root_here()?,
        };
        let state_dir = state::state_dir_for(state_dir, &root)?;
        let state_dir = state_dir.canonicalize().unwrap_or(state_dir);
        let launch = Launch {
            exe: daemon_exe()?,
            root: root.clone(),
            paths: StatePaths::new(&state_dir),
            // It reads the project's memreuse.toml itself, and again when it changes.
            args: Vec::new(),
            wait: WAIT,
        };
        Ok(Target { root, launch })
    }

    pub fn paths(&self) -> &StatePaths {
        &self.launch.paths
    }

    /// The running daemon, started if none runs; replaced if it is another build.
    pub fn ensure(&self) -> Result<Connection> {
        if !self.launch.exe.is_file() {
            bail!(Unavailable(format!(
                "memreused is not beside {} nor on PATH (build both binaries with `cargo build \
                 --release`, install both with `cargo install --path cli` and `cargo install \
                 --path daemon`, or set MEMREUSED)",
                std::env::current_exe()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            )));
        }
        let expected = build_id(&self.launch.exe)
            .with_context(|| format!("cannot read {}", self.launch.exe.display()))?;
        client::ensure(&self.launch, &expected).map_err(|err| Unavailable(err.to_string()).into())
    }

    /// The running daemon, if one answers and is this build (none is started).
    pub fn running(&self) -> Option<Connection> {
        let connection = client::connect(self.paths())?;
        let expected = build_id(&self.launch.exe).ok()?;
        (connection.hello.build_id == expected && connection.hello.root == self.root)
            .then_some(connection)
    }
}

/// `memreused`: `$MEMREUSED` when set, else the file beside this executable (as cargo
/// builds and installs them), else the first on `PATH`. It may not exist: only starting a
/// daemon needs it.
fn daemon_exe() -> Result<PathBuf> {
    const NAME: &str = "memreused";
    if let Some(path) = std::env::var_os("MEMREUSED").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let me = std::env::current_exe().context("cannot find my own executable")?;
    let beside = me.with_file_name(NAME);
    if beside.is_file() {
        return Ok(beside);
    }
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(NAME))
            .find(|candidate| candidate.is_file())
    });
    Ok(on_path.unwrap_or(beside))
}

/// A path and function named on the command line, checked against the root.
pub struct Named {
    pub path: PathBuf,
    pub function: Option<String>,
}

/// `FILE[::FUNCTION]`, as every command that takes a file reads it: the function is what
/// follows the last `::`, where a file and a function are both named.
pub fn split_function(target: &str) -> (&str, Option<&str>) {
    match target.rsplit_once("::") {
        Some((file, function)) if !file.is_empty() && !function.is_empty() => {
            (file, Some(function))
        }
        _ => (target, None),
    }
}

/// The error for a `FILE::FUNCTION` whose file has no such function, naming those it has.
pub fn no_such_function<'a>(
    function: &str,
    file: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> String {
    format!(
        "no function '{function}' in {file} (it has: {})",
        some_of(names)
    )
}

/// The first few of `names`, and how many more: real programs have a hundred functions.
pub fn some_of<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    const SHOWN: usize = 8;
    let names: Vec<&str> = names.into_iter().collect();
    match names.len().checked_sub(SHOWN) {
        None | Some(0) => names.join(", "),
        Some(more) => format!("{}, and {more} more", names[..SHOWN].join(", ")),
    }
}

/// `FILE[::FUNCTION]` as an absolute path below `root`; a path outside it is a usage error.
pub fn resolve(target: &str, root: &Path) -> Result<Named, UsageError> {
    let (file, function) = split_function(target);
    let function = function.map(str::to_string);
    let cwd = std::env::current_dir()
        .map_err(|e| UsageError(format!("cannot read the current directory: {e}")))?;
    let path = cwd.join(file);
    // Canonical like the root, so symlinks and `..` compare right; a file that does not
    // exist (yet) keeps its canonical directory.
    let path = path.canonicalize().unwrap_or_else(|_| {
        match (
            path.parent().and_then(|p| p.canonicalize().ok()),
            path.file_name(),
        ) {
            (Some(dir), Some(name)) => dir.join(name),
            _ => path.clone(),
        }
    });
    if !path.starts_with(root) {
        return Err(UsageError(format!(
            "{} is outside the workspace root {} (run from inside it, or pass --root)",
            path.display(),
            root.display()
        )));
    }
    Ok(Named { path, function })
}
