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

/// `text` for standard error with each line's leading `error:` or `warning:` (plain lines
/// such as a daemon's notes; rendered diagnostics have their colours already) in the colours
/// codespan gives diagnostics.
pub fn paint_severities(text: &str) -> std::borrow::Cow<'_, str> {
    if !enabled() {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 32);
    for line in text.split_inclusive('\n') {
        let styled = [("error:", "\u{1b}[1;31m"), ("warning:", "\u{1b}[1;33m")]
            .into_iter()
            .find_map(|(prefix, style)| {
                let rest = line.strip_prefix(prefix)?;
                Some(format!("{style}{prefix}\u{1b}[0m{rest}"))
            });
        match styled {
            Some(styled) => out.push_str(&styled),
            None => out.push_str(line),
        }
    }
    out.into()
}

/// `d` rendered for standard error.
pub fn render(d: &Diagnostic, file: &str, text: &str) -> String {
    d.render_styled(file, text, enabled())
}
