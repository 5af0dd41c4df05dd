//! Which directories are watched and which files are kernel files: everything below the
//! root except hidden entries, what `.gitignore` files exclude, and the state dir.

use std::path::{Component, Path, PathBuf};
use std::sync::RwLock;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Cookie files (freshness, in the `server` module doc) are named `<COOKIE_PREFIX><pid>-<n>`.
pub const COOKIE_PREFIX: &str = ".memreuse-cookie-";

pub struct Tree {
    root: PathBuf,
    /// The state dir when it lies inside the root: never watched, never read.
    state_dir: Option<PathBuf>,
    /// The root's own `.gitignore`, for paths that arrive in events (walks apply every
    /// `.gitignore` on the way down); read again when it changes.
    gitignore: RwLock<Gitignore>,
}

/// What a walk found, sorted.
#[derive(Default)]
pub struct Walked {
    pub dirs: Vec<PathBuf>,
    pub files: Vec<PathBuf>,
}

impl Tree {
    /// `root` and `state_dir` must be canonical.
    pub fn new(root: &Path, state_dir: &Path) -> Tree {
        Tree {
            root: root.to_path_buf(),
            state_dir: state_dir.starts_with(root).then(|| state_dir.to_path_buf()),
            gitignore: RwLock::new(root_gitignore(root)),
        }
    }

    /// Reads the root's `.gitignore` again (walks read every `.gitignore` as they go).
    pub fn reload_gitignore(&self) {
        *self.gitignore.write().unwrap_or_else(|p| p.into_inner()) = root_gitignore(&self.root);
    }

    /// Whether `path` is a `.gitignore` of the tree, whose change changes what is watched.
    pub fn is_gitignore(&self, path: &Path) -> bool {
        path.starts_with(&self.root) && path.file_name().is_some_and(|n| n == ".gitignore")
    }

    /// The root's `memreuse.toml`.
    pub fn settings_path(&self) -> PathBuf {
        self.root.join(memreuse_project::FILE_NAME)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directories and kernel files at and below `dir`.
    pub fn walk(&self, dir: &Path) -> Walked {
        let mut walked = Walked::default();
        if !self.admits(dir, true) {
            return walked;
        }
        let state_dir = self.state_dir.clone();
        let walker = ignore::WalkBuilder::new(dir)
            .hidden(true)
            // Honour .gitignore outside git repositories too: a kernel tree need not be one.
            .require_git(false)
            .filter_entry(move |e| state_dir.as_deref() != Some(e.path()))
            .build();
        for entry in walker.flatten() {
            let Some(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                walked.dirs.push(entry.into_path());
            } else if is_python(entry.path()) {
                // Whatever it is (a FIFO, a symlink): the reader decides, so that special
                // files are reported, not skipped in silence.
                walked.files.push(entry.into_path());
            }
        }
        walked.dirs.sort();
        walked.files.sort();
        walked
    }

    /// Whether a path below the root may be a kernel file (`is_dir == false`) or a watched
    /// directory: not hidden, not in the state dir, not excluded by the root's `.gitignore`.
    pub fn admits(&self, path: &Path, is_dir: bool) -> bool {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return false;
        };
        if self
            .state_dir
            .as_deref()
            .is_some_and(|s| path.starts_with(s))
        {
            return false;
        }
        let hidden = relative.components().any(|c| match c {
            Component::Normal(name) => name.as_encoded_bytes().starts_with(b"."),
            _ => true,
        });
        if hidden || (!is_dir && !is_python(path)) {
            return false;
        }
        relative.as_os_str().is_empty()
            || !self
                .gitignore
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .matched_path_or_any_parents(relative, is_dir)
                .is_ignore()
    }

    /// The number of the cookie at `path`, if it is one of this process's cookies.
    pub fn cookie(&self, path: &Path) -> Option<u64> {
        if path.parent() != Some(&self.root) {
            return None;
        }
        let name = path.file_name()?.to_str()?.strip_prefix(COOKIE_PREFIX)?;
        let (pid, n) = name.split_once('-')?;
        (pid.parse::<u32>().ok()? == std::process::id())
            .then(|| n.parse().ok())
            .flatten()
    }

    pub fn cookie_path(&self, n: u64) -> PathBuf {
        self.root
            .join(format!("{COOKIE_PREFIX}{}-{n}", std::process::id()))
    }
}

/// The root's `.gitignore`; a missing or unreadable one ignores nothing.
fn root_gitignore(root: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(root);
    let _ = builder.add(root.join(".gitignore"));
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

fn is_python(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "py")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_kernel_files_only() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::write(root.join(".gitignore"), "build/\n*.gen.py\n").expect("write");
        let tree = Tree::new(&root, &root.join(".state"));
        assert!(tree.admits(&root.join("k/a.py"), false));
        assert!(!tree.admits(&root.join("k/a.txt"), false));
        assert!(!tree.admits(&root.join(".git/a.py"), false));
        assert!(!tree.admits(&root.join("build/a.py"), false));
        assert!(!tree.admits(&root.join("build"), true));
        assert!(!tree.admits(&root.join("k/x.gen.py"), false));
        assert!(!tree.admits(&root.join(".state/x.py"), false));
        assert!(!tree.admits(Path::new("/elsewhere/a.py"), false));
        assert!(tree.admits(&root, true));
    }

    #[test]
    fn walks_skip_ignored_directories() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical");
        for path in [
            "k/a.py",
            "k/b.txt",
            "build/c.py",
            "state/d.py",
            ".hidden/e.py",
        ] {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, "").expect("write");
        }
        std::fs::write(root.join(".gitignore"), "build/\n").expect("write");
        let walked = Tree::new(&root, &root.join("state")).walk(&root);
        assert_eq!(walked.files, vec![root.join("k/a.py")]);
        assert_eq!(walked.dirs, vec![root.clone(), root.join("k")]);
    }

    #[test]
    fn cookies_are_recognised_by_name() {
        let tree = Tree::new(Path::new("/r"), Path::new("/s"));
        let path = tree.cookie_path(7);
        assert_eq!(tree.cookie(&path), Some(7));
        assert_eq!(tree.cookie(Path::new("/r/a.py")), None);
        assert_eq!(
            tree.cookie(&Path::new("/r/sub").join(path.file_name().expect("name"))),
            None
        );
    }
}
