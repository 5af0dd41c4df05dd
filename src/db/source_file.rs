//! The database's input per kernel file.

use std::path::PathBuf;
use std::sync::Arc;

/// One kernel file. `text` is `None` when the file's stamp vouched for its digest and the
/// text was not read (see `Workspace::load`). `materialize_aliases` is per file (it follows
/// the file name by default).
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    /// blake3 of the text.
    #[returns(copy)]
    pub digest: [u8; 32],
    #[returns(ref)]
    pub text: Option<Arc<str>>,
    #[returns(copy)]
    pub materialize_aliases: bool,
}
