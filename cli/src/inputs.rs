//! Finding the kernel files a command works on, and writing outputs without losing data.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::exit::UsageError;

/// Written into every `--out` directory: a later walk skips the directory, so a run never
/// plans the outputs of an earlier one.
pub const OUTPUT_MARKER: &str = ".memreuse-output";

/// One input file: where it is, which command-line argument found it, and its path relative
/// to the common root of all arguments (for mirroring into `--out`).
pub struct InputFile {
    pub path: PathBuf,
    pub argument: usize,
    pub relative: PathBuf,
}

/// The inputs named on a command line: files and directories, and functions of files.
pub struct Inputs {
    pub paths: Vec<PathBuf>,
    /// The function named by `FILE::FUNCTION`, by argument.
    pub functions: Vec<Option<String>>,
}

/// Reads each argument as a path or as `FILE::FUNCTION` (`target::split_function`; a path
/// that exists as given is a path). A function of a directory is a usage error.
pub fn split_inputs(args: &[PathBuf]) -> Result<Inputs, UsageError> {
    let mut inputs = Inputs {
        paths: Vec::with_capacity(args.len()),
        functions: Vec::with_capacity(args.len()),
    };
    for arg in args {
        let named = arg
            .to_str()
            .filter(|_| !arg.exists())
            .map(crate::target::split_function);
        let (path, function) = match named {
            Some((file, Some(function))) => (PathBuf::from(file), Some(function.to_string())),
            _ => (arg.clone(), None),
        };
        if function.is_some() && path.is_dir() {
            return Err(UsageError(format!(
                "{}: `::FUNCTION` names a function of a file, and {} is a directory",
                arg.display(),
                path.display()
            )));
        }
        inputs.paths.push(path);
        inputs.functions.push(function);
    }
    Ok(inputs)
}

/// Files named directly, plus every `*.py` below named directories (honouring `.gitignore`,
/// skipping hidden files and earlier `--out` directories), in a stable order; a file found
/// twice is kept once. A path that does not exist is a usage error.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<InputFile>> {
    let mut files = Vec::new();
    let mut canonical_args = Vec::with_capacity(paths.len());
    for (argument, root) in paths.iter().enumerate() {
        let meta = std::fs::metadata(root)
            .map_err(|err| UsageError(format!("cannot read {}: {err}", root.display())))?;
        let canonical = root
            .canonicalize()
            .with_context(|| format!("cannot resolve {}", root.display()))?;
        if meta.is_file() {
            files.push((root.clone(), canonical.clone(), argument));
            canonical_args.push(
                canonical
                    .parent()
                    .map_or(canonical.clone(), Path::to_path_buf),
            );
            continue;
        }
        canonical_args.push(canonical.clone());
        let mut found = Vec::new();
        let walk = ignore::WalkBuilder::new(root)
            .hidden(true)
            .filter_entry(|entry| {
                !(entry.file_type().is_some_and(|t| t.is_dir())
                    && entry.path().join(OUTPUT_MARKER).exists())
            })
            .build();
        for entry in walk {
            let entry = entry.with_context(|| format!("cannot walk {}", root.display()))?;
            let path = entry.path();
            if entry.file_type().is_some_and(|t| t.is_file())
                && path.extension().is_some_and(|e| e == "py")
            {
                let below = path.strip_prefix(root).unwrap_or(path);
                found.push((path.to_path_buf(), canonical.join(below), argument));
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        files.extend(found);
    }
    let common = common_root(&canonical_args);
    let mut seen = std::collections::HashSet::new();
    Ok(files
        .into_iter()
        .filter(|(_, canonical, _)| seen.insert(canonical.clone()))
        .map(|(path, canonical, argument)| InputFile {
            relative: canonical
                .strip_prefix(&common)
                .map_or_else(|_| canonical.clone(), Path::to_path_buf),
            path,
            argument,
        })
        .collect())
}

/// The deepest directory every one of `dirs` lies in.
fn common_root(dirs: &[PathBuf]) -> PathBuf {
    let Some(first) = dirs.first() else {
        return PathBuf::new();
    };
    let mut common = first.clone();
    for dir in &dirs[1..] {
        while !dir.starts_with(&common) {
            if !common.pop() {
                break;
            }
        }
    }
    common
}

/// Where each output goes under `--out DIR`: refuses two outputs on one path and an output
/// on an input, and marks `DIR` so later walks skip it.
pub fn prepare_out_dir(dir: &Path, inputs: &[InputFile], outputs: &[PathBuf]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let canonical_dir = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;
    let mut targets = std::collections::HashSet::new();
    for output in outputs {
        if !targets.insert(output.as_path()) {
            return Err(UsageError(format!(
                "two outputs would be written to {}; nothing was written",
                dir.join(output).display()
            ))
            .into());
        }
    }
    for input in inputs {
        let Ok(canonical) = input.path.canonicalize() else {
            continue;
        };
        if let Ok(below) = canonical.strip_prefix(&canonical_dir)
            && targets.contains(below)
        {
            return Err(UsageError(format!(
                "--out {} would overwrite the input {}; choose another directory",
                dir.display(),
                input.path.display()
            ))
            .into());
        }
    }
    let marker = dir.join(OUTPUT_MARKER);
    if !marker.exists() {
        write_atomically(
            &marker,
            "Written by memreuse: this directory holds outputs of `memreuse plan --out`, \
             which later runs do not plan.\n",
        )?;
    }
    Ok(())
}

/// Writes `contents` to `path` atomically: a temporary file beside it, renamed into place,
/// so a reader sees the old file or the new one, never a part.
pub fn write_atomically(path: &Path, contents: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, contents).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
