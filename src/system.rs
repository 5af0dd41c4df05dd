//! Where text comes from: the database never touches the file system itself; a [`System`]
//! feeds it text (DESIGN §1). `OsSystem` reads the disk, `MemorySystem` serves tests.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

pub trait System: Send + Sync {
    fn read_to_string(&self, path: &Path) -> io::Result<String>;
}

/// The real file system.
pub struct OsSystem;

impl System for OsSystem {
    fn read_to_string(&self, path: &Path) -> io::Result<String> {
        std::fs::read_to_string(path)
    }
}

/// Files held in memory.
#[derive(Default)]
pub struct MemorySystem {
    files: RwLock<BTreeMap<PathBuf, String>>,
}

impl MemorySystem {
    pub fn write(&self, path: impl Into<PathBuf>, text: impl Into<String>) {
        self.files
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.into(), text.into());
    }
}

impl System for MemorySystem {
    fn read_to_string(&self, path: &Path) -> io::Result<String> {
        let files = self.files.read().unwrap_or_else(|p| p.into_inner());
        files
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, path.display().to_string()))
    }
}
