//! The project root (like cargo and watchman: the nearest directory holding `memreuse.toml`
//! or `.git`), and planner settings from its `memreuse.toml` and the command line, the
//! command line winning.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use memreuse::backend::Backend;
use memreuse::ir::MemSpace;
use memreuse::plan::PlanConfig;

use crate::plan::BackendArg;

pub const FILE_NAME: &str = "memreuse.toml";

/// `backend = "910b"` and `[capacity] Vec = 131072` in `memreuse.toml`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    backend: Option<String>,
    #[serde(default)]
    capacity: std::collections::BTreeMap<String, i64>,
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

fn parse_space(name: &str) -> Result<MemSpace> {
    MemSpace::ALL
        .iter()
        .copied()
        .find(|s| s.name().eq_ignore_ascii_case(name))
        .with_context(|| {
            let known: Vec<&str> = MemSpace::ALL.iter().map(|s| s.name()).collect();
            format!(
                "unknown memory space '{name}' (known: {})",
                known.join(", ")
            )
        })
}

/// `SPACE=BYTES`, e.g. `Vec=131072`.
pub fn parse_capacity(text: &str) -> Result<(MemSpace, i64), String> {
    let (space, bytes) = text
        .split_once('=')
        .ok_or_else(|| format!("expected SPACE=BYTES, got '{text}'"))?;
    let space = parse_space(space.trim()).map_err(|e| e.to_string())?;
    let bytes: i64 = bytes
        .trim()
        .parse()
        .map_err(|_| format!("'{bytes}' is not a byte count"))?;
    if bytes < 0 {
        return Err(format!("capacity of {} must not be negative", space.name()));
    }
    Ok((space, bytes))
}

/// The configuration for this run: the `memreuse.toml` at `root` first, then the flags.
pub fn plan_config(
    root: &Path,
    backend_flag: Option<BackendArg>,
    capacity_flags: &[(MemSpace, i64)],
) -> Result<PlanConfig> {
    let mut config = PlanConfig::default();
    let path = root.join(FILE_NAME);
    if path.is_file() {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let file: FileSettings =
            toml::from_str(&text).with_context(|| format!("invalid {}", path.display()))?;
        if let Some(name) = &file.backend {
            let Some(backend) = Backend::from_name(name) else {
                bail!(
                    "{}: unknown backend '{name}' (use none, 910b or 950)",
                    path.display()
                );
            };
            config.backend = backend;
        }
        for (space, bytes) in &file.capacity {
            let space = parse_space(space).with_context(|| format!("in {}", path.display()))?;
            config.capacity_overrides[space as usize] = Some(*bytes);
        }
    }
    if let Some(backend) = backend_flag {
        config.backend = backend.into();
    }
    for &(space, bytes) in capacity_flags {
        config.capacity_overrides[space as usize] = Some(bytes);
    }
    Ok(config)
}
