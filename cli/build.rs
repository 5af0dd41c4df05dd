//! Records the commit the binary is built from, for `memreuse --version`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).map_or_else(
        || "commit unknown".to_string(),
        |hash| {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            format!("commit {hash}{}", if dirty { ", modified" } else { "" })
        },
    );
    println!("cargo:rustc-env=MEMREUSE_COMMIT={commit}");
    // Rebuild when HEAD moves (the git dir may be elsewhere in a worktree).
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
