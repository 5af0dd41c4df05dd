//! Syncing the store's log file on a thread of its own while a run goes on.
//!
//! sled writes each batch out with `sync_file_range` and syncs the whole file (`fsync`) only
//! when the database closes. That last sync then commits what the file system kept back for
//! the whole run (the metadata of a file grown by a hundred megabytes): 65–70 ms at the end
//! of a cold 20,000-function run, with nothing else left to do. Synced after every batch
//! while planning goes on, the file leaves that last sync under a millisecond
//! (BENCHMARKS.md, issue 16). Only an optimization: a sync that fails is left to sled's own.

use std::path::PathBuf;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

/// The syncing thread of one file, started by the first [`BackgroundSync::request`]. Dropped
/// without [`BackgroundSync::stop`], the thread ends after the sync in progress, unwaited.
pub(super) struct BackgroundSync {
    file: PathBuf,
    running: Option<(SyncSender<()>, JoinHandle<()>)>,
}

impl BackgroundSync {
    pub(super) fn new(file: PathBuf) -> BackgroundSync {
        BackgroundSync {
            file,
            running: None,
        }
    }

    /// Asks for the file to be synced as it is now: once the sync in progress, if any, ends.
    /// A request made while another waits is that one.
    pub(super) fn request(&mut self) {
        if let Some((requests, _)) = &self.running {
            match requests.try_send(()) {
                Ok(()) | Err(TrySendError::Full(())) => return,
                Err(TrySendError::Disconnected(())) => {}
            }
        }
        let (requests, received) = sync_channel::<()>(1);
        let file = self.file.clone();
        let thread = std::thread::Builder::new()
            .name("memreuse-store-sync".into())
            .spawn(move || {
                for () in received {
                    // The file is opened anew each time: a store rebuilt meanwhile has a new one.
                    let _ = std::fs::File::open(&file).and_then(|f| f.sync_all());
                }
            });
        if let Ok(thread) = thread {
            // The channel is empty: this cannot fail.
            let _ = requests.try_send(());
            self.running = Some((requests, thread));
        }
    }

    /// Waits for the sync in progress, if any, and stops the thread.
    pub(super) fn stop(&mut self) {
        if let Some((requests, thread)) = self.running.take() {
            drop(requests);
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_share_one_thread_that_stop_waits_for() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let file = dir.path().join("db");
        std::fs::write(&file, b"log").expect("write");
        let mut sync = BackgroundSync::new(file.clone());
        sync.request();
        let thread = sync.running.as_ref().map(|(_, t)| t.thread().id());
        for _ in 0..100 {
            sync.request();
        }
        assert_eq!(sync.running.as_ref().map(|(_, t)| t.thread().id()), thread);
        sync.stop();
        assert!(sync.running.is_none());
        // A file that is gone is not an error: the thread carries on (it ends only when
        // its requests end).
        std::fs::remove_file(&file).expect("remove");
        sync.request();
        sync.request();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let (_, thread) = sync.running.as_ref().expect("a thread again");
        assert!(!thread.is_finished());
        sync.stop();
    }
}
