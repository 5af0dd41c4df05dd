//! Finding and reading the kernel files a command works on.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// One input file: where it is, and how to name it in output (relative to the argument it
/// was found under, for mirroring into `--out`).
pub struct InputFile {
    pub path: PathBuf,
    pub relative: PathBuf,
}

/// Files named directly, plus every `*.py` below named directories (honouring `.gitignore`),
/// in a stable order.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<InputFile>> {
    let mut files = Vec::new();
    for root in paths {
        let meta =
            std::fs::metadata(root).with_context(|| format!("cannot read {}", root.display()))?;
        if meta.is_file() {
            let relative = root
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| root.clone());
            files.push(InputFile {
                path: root.clone(),
                relative,
            });
            continue;
        }
        let mut found = Vec::new();
        for entry in ignore::WalkBuilder::new(root).hidden(true).build() {
            let entry = entry.with_context(|| format!("cannot walk {}", root.display()))?;
            let path = entry.path();
            if entry.file_type().is_some_and(|t| t.is_file())
                && path.extension().is_some_and(|e| e == "py")
            {
                let relative = path.strip_prefix(root).unwrap_or(path).to_path_buf();
                found.push(InputFile {
                    path: path.to_path_buf(),
                    relative,
                });
            }
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        files.extend(found);
    }
    Ok(files)
}

/// Writes `contents` to `path` atomically (a temporary file renamed into place).
pub fn write_atomically(path: &Path, contents: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let tmp = path.with_extension("py.tmp");
    std::fs::write(&tmp, contents).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
