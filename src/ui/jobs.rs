//! Background jobs: long work runs on a thread; the UI polls progress each frame and can cancel.

use crate::util::cancel::Cancel;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;

/// A running job producing `T`.
pub struct Job<T> {
    pub name: String,
    pub total: u64,
    progress: Arc<AtomicU64>,
    cancel: Cancel,
    handle: Option<JoinHandle<anyhow::Result<Option<T>>>>,
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work(progress, cancel)` on a new thread; `total` is the progress value at completion.
    pub fn spawn(
        name: impl Into<String>,
        total: u64,
        work: impl FnOnce(&AtomicU64, &Cancel) -> anyhow::Result<Option<T>> + Send + 'static,
    ) -> Self {
        Self::spawn_with(name, total, Cancel::default(), work)
    }

    /// `spawn` with a token the caller keeps too (e.g. a model run's): stopping or dropping the job cancels it.
    pub fn spawn_with(
        name: impl Into<String>,
        total: u64,
        cancel: Cancel,
        work: impl FnOnce(&AtomicU64, &Cancel) -> anyhow::Result<Option<T>> + Send + 'static,
    ) -> Self {
        let progress = Arc::new(AtomicU64::new(0));
        let (p, c) = (progress.clone(), cancel.clone());
        let handle = std::thread::spawn(move || work(&p, &c));
        Job { name: name.into(), total, progress, cancel, handle: Some(handle) }
    }

    /// Fraction done in [0, 1].
    pub fn fraction(&self) -> f32 {
        if self.total == 0 { 1.0 } else { self.progress.load(Ordering::Relaxed) as f32 / self.total as f32 }
    }

    /// Asks the job to stop.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// The result once the thread has finished (taken once); `Ok(None)` if it was cancelled.
    pub fn poll(&mut self) -> Option<anyhow::Result<Option<T>>> {
        if self.handle.as_ref().is_some_and(|h| h.is_finished()) {
            let h = self.handle.take()?;
            return Some(h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("{} stopped unexpectedly", self.name))));
        }
        None
    }

    /// True until the result has been taken.
    pub fn is_running(&self) -> bool {
        self.handle.is_some()
    }

    /// True while the thread works (its result may wait, untaken, for the room to poll it).
    pub fn is_working(&self) -> bool {
        self.handle.as_ref().is_some_and(|h| !h.is_finished())
    }
}

impl<T> Drop for Job<T> {
    /// A job dropped while it runs is stopped (its token may be shared, so a finished job leaves it alone).
    fn drop(&mut self) {
        if self.handle.is_some() {
            self.cancel.cancel();
        }
    }
}

/// Polls a window's job each frame: when it finishes its outcome becomes the window's result (errors as
/// text); while it runs the frame is repainted soon.
pub fn poll_into<T: Send + 'static>(
    job: &mut Option<Job<Result<T, String>>>,
    result: &mut Option<Result<T, String>>,
    ctx: &egui::Context,
) {
    let Some(j) = job else { return };
    match j.poll() {
        Some(Ok(r)) => {
            *result = r;
            *job = None;
        }
        Some(Err(e)) => {
            *result = Some(Err(format!("{e:#}")));
            *job = None;
        }
        None => ctx.request_repaint_after(std::time::Duration::from_millis(30)),
    }
}

/// A panel's place for a job (`Option<Job<T>>`, or a job kept with the key it was started for): what the room
/// lists in the status bar and stops on Cancel.
pub trait JobSlot {
    /// Name and fraction done, while the job runs.
    fn status(&self) -> Option<(String, f32)>;
    fn cancel(&self);
}

impl<T: Send + 'static> JobSlot for Option<Job<T>> {
    fn status(&self) -> Option<(String, f32)> {
        self.as_ref().filter(|j| j.is_working()).map(|j| (j.name.clone(), j.fraction()))
    }
    fn cancel(&self) {
        if let Some(j) = self {
            j.cancel();
        }
    }
}

impl<K, T: Send + 'static> JobSlot for Option<(K, Job<T>)> {
    fn status(&self) -> Option<(String, f32)> {
        self.as_ref().filter(|(_, j)| j.is_working()).map(|(_, j)| (j.name.clone(), j.fraction()))
    }
    fn cancel(&self) {
        if let Some((_, j)) = self {
            j.cancel();
        }
    }
}

/// The running jobs among `slots`.
pub fn running(slots: &[&dyn JobSlot]) -> Vec<(String, f32)> {
    slots.iter().filter_map(|s| s.status()).collect()
}

/// Stops every job among `slots`.
pub fn cancel_all(slots: &[&dyn JobSlot]) {
    for s in slots {
        s.cancel();
    }
}
