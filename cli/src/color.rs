//! `--color auto|always|never`: coloured diagnostics on a terminal, none in logs or pipes.

use std::io::IsTerminal as _;
use std::sync::OnceLock;

use memreuse::diagnostics::Diagnostic;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When standard error is a terminal and `NO_COLOR` is unset.
    Auto,
    Always,
    Never,
}

static STDERR_COLOR: OnceLock<bool> = OnceLock::new();

/// Decides once, at start-up, whether diagnostics on standard error are coloured.
pub fn init(choice: ColorChoice) {
    let color = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let _ = STDERR_COLOR.set(color);
}

/// Whether standard error gets colours.
pub fn enabled() -> bool {
    STDERR_COLOR.get().copied().unwrap_or(false)
}

/// `d` rendered for standard error.
pub fn render(d: &Diagnostic, file: &str, text: &str) -> String {
    d.render_styled(file, text, enabled())
}
