//! The project root (like cargo and watchman: the nearest directory holding `memreuse.toml`
//! or `.git`), and planner settings from its `memreuse.toml` and the command line, the
//! command line winning.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use memreuse::ir::MemSpace;
use memreuse::plan::PlanConfig;

use crate::args::BackendArg;

pub use memreuse_project::{FILE_NAME, parse_capacity, parse_size};

/// The cache's size cap when memreuse.toml sets none.
pub const DEFAULT_CACHE_CAP: u64 = 1 << 30;

/// The cache's size cap: the `[cache] max-size` of the `memreuse.toml` at `root`, else
/// [`DEFAULT_CACHE_CAP`].
pub fn cache_cap(root: &Path) -> Result<u64> {
    Ok(memreuse_project::load(root)?
        .cache_max_size
        .unwrap_or(DEFAULT_CACHE_CAP))
}

/// The nearest of `start` (canonical) and its ancestors that holds `memreuse.toml` or `.git`.
fn find_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join(FILE_NAME).is_file() || dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The project the current directory is in: its root, else the current directory itself.
pub fn root_here() -> Result<PathBuf> {
    let cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .context("cannot read the current directory")?;
    Ok(find_root(&cwd).unwrap_or(cwd))
}

/// The project the first of `paths` is in, so that the same files planned from anywhere
/// share one state dir and one `memreuse.toml`; the current directory's when it is in none.
pub fn root_of(paths: &[PathBuf]) -> Result<PathBuf> {
    let found = paths.first().and_then(|path| {
        let path = path.canonicalize().ok()?;
        let dir = if path.is_dir() {
            path
        } else {
            path.parent()?.to_path_buf()
        };
        find_root(&dir)
    });
    match found {
        Some(root) => Ok(root),
        None => root_here(),
    }
}

/// The configuration for this run: the `memreuse.toml` at `root` first, then the flags.
pub fn plan_config(
    root: &Path,
    backend_flag: Option<BackendArg>,
    capacity_flags: &[(MemSpace, i64)],
) -> Result<PlanConfig> {
    let mut config = memreuse_project::load(root)?.config;
    if let Some(backend) = backend_flag {
        config.backend = backend.into();
    }
    for &(space, bytes) in capacity_flags {
        config.capacity_overrides[space as usize] = Some(bytes);
    }
    Ok(config)
}
