//! Planner settings from `memreuse.toml` (found in the current directory or an ancestor) and
//! the command line, the command line winning.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use memreuse::backend::Backend;
use memreuse::ir::MemSpace;
use memreuse::plan::PlanConfig;

use crate::plan::BackendArg;

pub const FILE_NAME: &str = "memreuse.toml";

/// `backend = "910b"` and `[capacity] Vec = 131072` in `memreuse.toml`; `max_file_bytes`
/// bounds what the daemon reads of one file.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    backend: Option<String>,
    #[serde(default)]
    capacity: std::collections::BTreeMap<String, i64>,
    max_file_bytes: Option<u64>,
}

/// `memreuse.toml`'s settings and where it is, if there is one.
fn file_settings() -> Result<Option<(PathBuf, FileSettings)>> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let Some(path) = find_settings_file(&cwd) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let file = toml::from_str(&text).with_context(|| format!("invalid {}", path.display()))?;
    Ok(Some((path, file)))
}

/// `max_file_bytes` from `memreuse.toml`, if set.
pub fn max_file_bytes() -> Result<Option<u64>> {
    Ok(file_settings()?.and_then(|(_, file)| file.max_file_bytes))
}

fn find_settings_file(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
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

/// The configuration for this run: `memreuse.toml` first, then the flags.
pub fn plan_config(
    backend_flag: Option<BackendArg>,
    capacity_flags: &[(MemSpace, i64)],
) -> Result<PlanConfig> {
    let mut config = PlanConfig::default();
    if let Some((path, file)) = file_settings()? {
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
