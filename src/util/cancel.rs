//! The one cancellation token: set it from any thread (the user, a deadline, Ctrl-C); long work checks it
//! between steps (tokens, retries, records, epochs, instances) and stops with its reason.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A shared flag with the reason it was set; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>, Arc<Mutex<Option<String>>>);

impl Cancel {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst)
    }

    /// Cancels and says why (e.g. "stopped at the instance deadline of 720 s"); the first reason is kept.
    pub fn cancel_because(&self, reason: impl Into<String>) {
        if let Ok(mut r) = self.1.lock() {
            r.get_or_insert(reason.into());
        }
        self.cancel();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Why it was cancelled, when a reason was given.
    pub fn reason(&self) -> Option<String> {
        self.1.lock().ok().and_then(|r| r.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::Cancel;

    #[test]
    fn clones_share_the_flag_and_the_first_reason() {
        let a = Cancel::default();
        let b = a.clone();
        assert!(!b.is_cancelled());
        a.cancel_because("deadline");
        b.cancel_because("user");
        assert!(b.is_cancelled());
        assert_eq!(b.reason().as_deref(), Some("deadline"));
    }
}
