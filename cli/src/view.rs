//! `memreuse view [PATH[::FUNCTION]]`: the memory viewer in the browser, served by the daemon
//! (started when none runs) on 127.0.0.1 with a random token in the URL.

use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};

use anyhow::{Result, bail};
use memreuse_daemon_client::protocol::{Body, Request};

use crate::exit::Unavailable;
use crate::target::Target;

#[derive(clap::Args)]
pub struct ViewArgs {
    /// A file or `FILE::FUNCTION` to show first [default: the first function of the tree].
    pub target: Option<String>,
    /// Print the URL only; do not open a browser (also when none is found).
    #[arg(long)]
    pub no_open: bool,
    /// The project root [default: the nearest directory up from here holding memreuse.toml
    /// or .git, else the current directory].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

pub fn run(args: ViewArgs, state_dir: Option<&Path>) -> Result<ExitCode> {
    let target = Target::new(args.root.as_deref(), state_dir)?;
    // Checked against the root as `query` checks it; the page names files relative to it.
    let fragment = match &args.target {
        Some(named) => {
            let named = crate::target::resolve(named, &target.root)?;
            if !named.path.exists() {
                bail!(crate::exit::UsageError(format!(
                    "{} does not exist",
                    named.path.display()
                )));
            }
            let relative = named
                .path
                .strip_prefix(&target.root)
                .unwrap_or(&named.path)
                .display()
                .to_string();
            let key = match named.function {
                Some(function) => format!("{relative}::{function}"),
                None => relative,
            };
            format!("#{}", percent_encode(&key))
        }
        None => String::new(),
    };
    let mut connection = target.ensure()?;
    let response = connection
        .client
        .request(&Request::View)
        .map_err(|e| Unavailable(e.to_string()))?;
    let url = match response.body {
        Body::View(view) => format!("{}{fragment}", view.url),
        Body::Error(err) => bail!(Unavailable(err.message)),
        other => bail!(Unavailable(format!("unexpected answer {other:?}"))),
    };
    {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{url}")?;
        out.flush()?;
    }
    if !args.no_open {
        match open_browser(&url) {
            Some(how) => tracing::info!("opened the viewer with {how}"),
            None => eprintln!(
                "note: no browser found to open (set BROWSER, or open the URL above yourself)"
            ),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Starts `$BROWSER`, else the desktop's opener, detached; what was started, if anything.
fn open_browser(url: &str) -> Option<String> {
    let graphical = cfg!(target_os = "macos")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some();
    let mut candidates: Vec<String> = std::env::var("BROWSER")
        .ok()
        .map(|b| b.split(':').map(str::to_string).collect())
        .unwrap_or_default();
    if graphical {
        candidates.extend(["xdg-open".to_string(), "open".to_string()]);
    }
    candidates.into_iter().find(|program| {
        !program.is_empty()
            && std::process::Command::new(program)
                .arg(url)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .is_ok()
    })
}

/// Percent-encodes what a URL fragment must not hold raw (the page decodes it).
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_keep_paths_and_function_names_readable() {
        assert_eq!(percent_encode("a/b c.py::main"), "a/b%20c.py::main");
        assert_eq!(percent_encode("é#"), "%C3%A9%23");
    }
}
