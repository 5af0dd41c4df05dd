//! Exit codes (README, "Exit codes"): 0 success; 1 the input or a plan has errors; 2 a usage
//! error; 3 the cache or the daemon could not be reached or started.

use std::process::ExitCode;

pub const ERRORS: u8 = 1;
pub const USAGE: u8 = 2;
pub const UNAVAILABLE: u8 = 3;

/// A usage error (exit code 2): a flag, a path or a name the user got wrong.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The cache or the daemon could not be reached or started (exit code 3).
#[derive(Debug)]
pub struct Unavailable(pub String);

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unavailable {}

/// The exit code of a command that ended with `err`, or `None` when the reader of standard
/// output went away (`| head`): that ends the command quietly with 0, as in ripgrep.
pub fn code_of(err: &anyhow::Error) -> Option<ExitCode> {
    let broken_pipe = err.chain().any(|cause| {
        let kind = match cause.downcast_ref::<std::io::Error>() {
            Some(io) => Some(io.kind()),
            None => cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind),
        };
        kind == Some(std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return None;
    }
    let code = if err.downcast_ref::<Unavailable>().is_some() {
        UNAVAILABLE
    } else if err.downcast_ref::<UsageError>().is_some() {
        USAGE
    } else {
        ERRORS
    };
    Some(ExitCode::from(code))
}
