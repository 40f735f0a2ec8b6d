//! What a running evaluation shows while it runs: a row per instance (state, score, tokens, time, errors),
//! the start time for the ETA, and notices for the user. The CLI's bar and the Run view both read it.

use std::sync::Mutex;
use std::time::Instant;

/// What the run view and the progress bar see.
#[derive(Debug, Clone, PartialEq)]
pub enum RowState {
    Queued,
    Running {
        attempt: u32,
    },
    Done,
    /// Kept from the file being resumed.
    Kept,
}

#[derive(Debug, Clone)]
pub struct Row {
    pub instance_id: String,
    pub state: RowState,
    pub score: Option<f64>,
    pub max: f64,
    pub tokens: u64,
    pub seconds: f64,
    pub errors: Vec<String>,
}

/// Live progress shared with the caller (CLI bar, GUI table).
#[derive(Default)]
pub struct Live {
    pub rows: Mutex<Vec<Row>>,
    pub started: Mutex<Option<Instant>>,
    /// Warnings for the user (a skipped case, a run without the sandbox), in order; the faces show them.
    pub notices: Mutex<Vec<String>>,
}

impl Live {
    pub fn notice(&self, text: String) {
        self.notices.lock().unwrap_or_else(|p| p.into_inner()).push(text);
    }

    /// The notices from index `from` on.
    pub fn notices_from(&self, from: usize) -> Vec<String> {
        self.notices.lock().unwrap_or_else(|p| p.into_inner()).get(from..).map(<[String]>::to_vec).unwrap_or_default()
    }

    /// (finished, total, seconds elapsed, ETA seconds from the mean time of instances finished in this run).
    pub fn progress(&self) -> (usize, usize, f64, Option<f64>) {
        let rows = self.rows.lock().unwrap_or_else(|p| p.into_inner());
        let done_now = rows.iter().filter(|r| r.state == RowState::Done).count();
        let done = done_now + rows.iter().filter(|r| r.state == RowState::Kept).count();
        let elapsed = self.started.lock().unwrap_or_else(|p| p.into_inner()).map_or(0.0, |s| s.elapsed().as_secs_f64());
        let left = rows.len() - done;
        let eta = (done_now > 0).then(|| elapsed / done_now as f64 * left as f64);
        (done, rows.len(), elapsed, eta)
    }
}
