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

/// `backend = "910b"` and `[capacity] Vec = 131072` in `memreuse.toml`; `max_file_bytes`
/// bounds what the daemon reads of one file.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    backend: Option<String>,
    #[serde(default)]
    capacity: std::collections::BTreeMap<String, i64>,
    #[serde(default)]
    cache: CacheSettings,
    max_file_bytes: Option<u64>,
}

/// `max_file_bytes` of the `memreuse.toml` at `root`, if set.
pub fn max_file_bytes(root: &Path) -> Result<Option<u64>> {
    let path = root.join(FILE_NAME);
    if !path.is_file() {
        return Ok(None);
    }
    Ok(read_settings(&path)?.max_file_bytes)
}

/// `[cache] max-size = "1 GiB"`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CacheSettings {
    max_size: Option<toml::Value>,
}

/// The cache's size cap when memreuse.toml sets none.
pub const DEFAULT_CACHE_CAP: u64 = 1 << 30;

/// A byte size: `1073741824`, `512 MiB`, `1 GiB`, `64K` (K, M, G, T and KiB… are powers of
/// 1024; KB, MB, GB, TB powers of 1000).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size (e.g. 1 GiB, 512 MiB, 1048576)"))?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        other => {
            return Err(format!(
                "unknown size unit '{other}' (use B, KiB, MiB, GiB, TiB)"
            ));
        }
    };
    Ok((number * scale) as u64)
}

/// The cache's size cap: the `[cache] max-size` of the `memreuse.toml` at `root`, else
/// [`DEFAULT_CACHE_CAP`].
pub fn cache_cap(root: &Path) -> Result<u64> {
    let path = root.join(FILE_NAME);
    if !path.is_file() {
        return Ok(DEFAULT_CACHE_CAP);
    }
    let file = read_settings(&path)?;
    match file.cache.max_size {
        None => Ok(DEFAULT_CACHE_CAP),
        Some(toml::Value::Integer(bytes)) if bytes >= 0 => Ok(bytes as u64),
        Some(toml::Value::String(text)) => parse_size(&text)
            .map_err(|err| anyhow::anyhow!("{}: [cache] max-size: {err}", path.display())),
        Some(other) => bail!(
            "{}: [cache] max-size must be a size like \"1 GiB\", not {other}",
            path.display()
        ),
    }
}

fn read_settings(path: &Path) -> Result<FileSettings> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("invalid {}", path.display()))
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
        let file = read_settings(&path)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("1 GiB"), Ok(1 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5 K"), Ok(1536));
        assert_eq!(parse_size("2 MB"), Ok(2_000_000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3 parsecs").is_err());
    }
}
