//! A project's `memreuse.toml`: `backend = "910b"`, `rules = "snapshot"`, `[capacity] Vec = 131072`,
//! `[cache] max-size = "1 GiB"` and `max_file_bytes`. The CLI reads it for every command;
//! the daemon reads it when it starts and again whenever it changes.

use std::path::{Path, PathBuf};

use memreuse_ir::MemSpace;
use memreuse_ir::backend::Backend;
use memreuse_plan::{PlanConfig, Rules};

pub const FILE_NAME: &str = "memreuse.toml";

/// Whether `path` names a dump taken straight after InitMemRef, which Step 0
/// (MaterializeSemanticAliases) must run on first, as PyPTO's pipeline does (the `auto` of
/// `--materialize-aliases`).
pub fn is_init_mem_ref_dump(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().contains("_after_InitMemRef"))
}

/// What a `memreuse.toml` sets (an absent file sets nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProjectSettings {
    /// The configuration it gives, over [`PlanConfig::default`].
    pub config: PlanConfig,
    pub cache_max_size: Option<u64>,
    pub max_file_bytes: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum ProjectSettingsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    backend: Option<String>,
    rules: Option<String>,
    #[serde(default)]
    capacity: std::collections::BTreeMap<String, i64>,
    #[serde(default)]
    cache: CacheSettings,
    max_file_bytes: Option<u64>,
}

/// `[cache] max-size = "1 GiB"` (or a byte count).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CacheSettings {
    max_size: Option<toml::Value>,
}

/// The `memreuse.toml` of the project at `root`; defaults when it has none.
pub fn load(root: &Path) -> Result<ProjectSettings, ProjectSettingsError> {
    let path = root.join(FILE_NAME);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(ProjectSettings::default());
        }
        Err(source) => return Err(ProjectSettingsError::Read { path, source }),
    };
    parse(&text).map_err(|message| ProjectSettingsError::Invalid { path, message })
}

fn parse(text: &str) -> Result<ProjectSettings, String> {
    let file: FileSettings = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut config = PlanConfig::default();
    if let Some(name) = &file.backend {
        config.backend = Backend::from_name(name)
            .ok_or_else(|| format!("unknown backend '{name}' (use none, 910b or 950)"))?;
    }
    if let Some(name) = &file.rules {
        config.rules = Rules::from_name(name)
            .ok_or_else(|| format!("unknown rules '{name}' (use seed or snapshot)"))?;
    }
    for (space, bytes) in &file.capacity {
        let space = parse_space(space)?;
        if *bytes < 0 {
            return Err(format!("capacity of {} must not be negative", space.name()));
        }
        config.capacity_overrides[space as usize] = Some(*bytes);
    }
    let cache_max_size = match file.cache.max_size {
        None => None,
        Some(toml::Value::Integer(bytes)) if bytes >= 0 => Some(bytes as u64),
        Some(toml::Value::String(text)) => {
            Some(parse_size(&text).map_err(|err| format!("[cache] max-size: {err}"))?)
        }
        Some(other) => {
            return Err(format!(
                "[cache] max-size must be a size like \"1 GiB\", not {other}"
            ));
        }
    };
    Ok(ProjectSettings {
        config,
        cache_max_size,
        max_file_bytes: file.max_file_bytes,
    })
}

/// A memory space by name, any case.
pub fn parse_space(name: &str) -> Result<MemSpace, String> {
    MemSpace::ALL
        .iter()
        .copied()
        .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| {
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
    let space = parse_space(space)?;
    let bytes: i64 = bytes
        .trim()
        .parse()
        .map_err(|_| format!("'{bytes}' is not a byte count"))?;
    if bytes < 0 {
        return Err(format!("capacity of {} must not be negative", space.name()));
    }
    Ok((space, bytes))
}

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

    #[test]
    fn a_file_sets_backend_capacities_and_limits() {
        let settings = parse(
            "backend = \"910b\"\nmax_file_bytes = 10\n[capacity]\nvec = 4096\n\
             [cache]\nmax-size = \"2 MiB\"\n",
        )
        .expect("parses");
        assert_eq!(settings.config.backend, Backend::Ascend910B);
        assert_eq!(
            settings.config.capacity_overrides[MemSpace::Vec as usize],
            Some(4096)
        );
        assert_eq!(settings.cache_max_size, Some(2 << 20));
        assert_eq!(settings.max_file_bytes, Some(10));
        assert!(parse("backend = \"h100\"\n").is_err());
        assert_eq!(
            parse("rules = \"snapshot\"\n").map(|s| s.config.rules),
            Ok(Rules::Snapshot)
        );
        assert!(parse("rules = \"newest\"\n").is_err());
        assert!(parse("colour = 1\n").is_err());
    }
}
