//! The model runs one request at a time; the others wait here, up to a bound. Past it a request is refused
//! with how long to wait (429, `Retry-After`); once the server is closing, waiting requests are refused
//! (503) and the one running finishes.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

#[derive(Default)]
struct State {
    running: bool,
    waiting: usize,
    closing: bool,
    served: usize,
    busy_s: f64,
}

pub struct Gate {
    state: Mutex<State>,
    turn: Condvar,
    max_waiting: usize,
}

/// Why a request does not get the model.
#[derive(Debug, PartialEq)]
pub enum Refused {
    /// `max_waiting` requests wait already; try again after this many seconds.
    Full {
        retry_after_s: u64,
    },
    Closing,
}

/// The model, held until dropped.
pub struct Turn<'a> {
    gate: &'a Gate,
    started: Instant,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut s = self.gate.lock();
        s.running = false;
        s.served += 1;
        s.busy_s += self.started.elapsed().as_secs_f64();
        drop(s);
        self.gate.turn.notify_all();
    }
}

/// Counts for `/health`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counts {
    pub running: usize,
    pub waiting: usize,
    pub served: usize,
}

impl Gate {
    pub fn new(max_waiting: usize) -> Gate {
        Gate { state: Mutex::default(), turn: Condvar::new(), max_waiting }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for the model, or is refused at once (full, closing) or when the server starts closing.
    pub fn enter(&self) -> Result<Turn<'_>, Refused> {
        let mut s = self.lock();
        if s.closing {
            return Err(Refused::Closing);
        }
        if s.running || s.waiting > 0 {
            if s.waiting >= self.max_waiting {
                // The queue ahead drains at the mean time a request has taken (5 s before the first is done).
                let mean = if s.served == 0 { 5.0 } else { s.busy_s / s.served as f64 };
                let retry_after_s = (mean * (s.waiting + 1) as f64).ceil().clamp(1.0, 3600.0) as u64;
                return Err(Refused::Full { retry_after_s });
            }
            s.waiting += 1;
            while s.running && !s.closing {
                s = self.turn.wait(s).unwrap_or_else(|p| p.into_inner());
            }
            s.waiting -= 1;
            if s.closing {
                return Err(Refused::Closing);
            }
        }
        s.running = true;
        Ok(Turn { gate: self, started: Instant::now() })
    }

    /// Refuses every waiting and later request; the running one goes on. False when it was closed already.
    pub fn close(&self) -> bool {
        let was = std::mem::replace(&mut self.lock().closing, true);
        self.turn.notify_all();
        !was
    }

    pub fn is_closing(&self) -> bool {
        self.lock().closing
    }

    pub fn counts(&self) -> Counts {
        let s = self.lock();
        Counts { running: usize::from(s.running), waiting: s.waiting, served: s.served }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    fn wait_for(g: &Gate, waiting: usize) {
        for _ in 0..500 {
            if g.counts().waiting == waiting {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("never {waiting} waiting: {:?}", g.counts());
    }

    /// One runs, `max_waiting` wait (then run in turn), the next is refused with a wait; closing refuses the
    /// waiting ones and lets the running one finish.
    #[test]
    fn bounded_waiting_then_refusal_then_closing() {
        let g = Arc::new(Gate::new(2));
        let first = g.enter().unwrap();
        let waiters: Vec<_> = (0..2)
            .map(|i| {
                let g2 = g.clone();
                let h = std::thread::spawn(move || g2.enter().map(|_| ()));
                wait_for(&g, i + 1);
                h
            })
            .collect();
        assert!(matches!(g.enter(), Err(Refused::Full { retry_after_s }) if retry_after_s == 15), "3 × 5 s");
        drop(first);
        for w in waiters {
            assert_eq!(w.join().unwrap(), Ok(()));
        }
        assert_eq!(g.counts(), Counts { running: 0, waiting: 0, served: 3 });

        let running = g.enter().unwrap();
        let g2 = g.clone();
        let waiting = std::thread::spawn(move || g2.enter().map(|_| ()));
        wait_for(&g, 1);
        g.close();
        assert_eq!(waiting.join().unwrap(), Err(Refused::Closing));
        assert_eq!(g.counts().running, 1, "the running request is not interrupted");
        drop(running);
        assert_eq!(g.enter().err(), Some(Refused::Closing));
    }
}
