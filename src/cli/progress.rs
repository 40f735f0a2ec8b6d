//! Progress of long commands on stderr: on a terminal a bar redrawn in place (indicatif); in a file or a
//! pipe a plain line at each tenth of the work and at the end, so a log holds at most eleven lines.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Instant;

pub struct Progress {
    bar: Option<ProgressBar>,
    unit: String,
    started: Instant,
    /// The last tenth written as a line (plain mode), `None` before the first.
    said: Mutex<Option<usize>>,
}

impl Progress {
    /// Progress over `total` units (`"runs"`, `"instances"`…); drawn as a bar when stderr is a terminal.
    pub fn new(total: usize, unit: &str) -> Progress {
        Progress::with_terminal(total, unit, std::io::stderr().is_terminal())
    }

    fn with_terminal(total: usize, unit: &str, terminal: bool) -> Progress {
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(&format!(
                "[{{bar:30}}] {{pos}}/{{len}} {unit} · {{elapsed_precise}} ETA {{eta}} {{msg}}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("#>-");
            bar.set_style(style);
            bar
        });
        Progress { bar, unit: unit.to_string(), started: Instant::now(), said: Mutex::new(None) }
    }

    /// `done` of `total` finished (the total may grow as work is discovered).
    pub fn set(&self, done: usize, total: usize) {
        if let Some(line) = self.update(done, total) {
            eprintln!("{line}");
        }
    }

    /// The bar moved (terminal), or the plain line to write when a new tenth is reached.
    fn update(&self, done: usize, total: usize) -> Option<String> {
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            return None;
        }
        let tenth = if total == 0 { 10 } else { (done * 10 / total).min(10) };
        let mut said = self.said.lock().unwrap_or_else(|e| e.into_inner());
        if said.is_some_and(|s| s >= tenth) {
            return None;
        }
        *said = Some(tenth);
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = (done > 0 && done < total)
            .then(|| format!(", ETA {:.0} s", elapsed / done as f64 * (total - done) as f64))
            .unwrap_or_default();
        let pct = if total == 0 { 100 } else { done * 100 / total };
        Some(format!("{done}/{total} {} ({pct} %) · {elapsed:.0} s{eta}", self.unit))
    }

    /// A line of its own (a notice during the work), written above the bar on a terminal.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// A short status after the counts (the current epoch's loss), on a terminal only.
    pub fn status(&self, text: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(text.to_string());
        }
    }

    /// Where the work is when there is no count (the passage being read): the bar's status on a terminal, a
    /// line otherwise.
    pub fn note(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.set_message(text.to_string()),
            None => eprintln!("{text}"),
        }
    }

    /// Ends the bar, leaving its last state on the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.abandon();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a terminal: a line at each new tenth (and the end), whatever the number of updates.
    #[test]
    fn plain_mode_writes_a_line_per_tenth() {
        let p = Progress::with_terminal(175, "runs", false);
        let lines: Vec<String> = (0..=175).flat_map(|d| [p.update(d, 175), p.update(d, 175)]).flatten().collect();
        assert_eq!(lines.len(), 11, "{lines:#?}");
        assert!(lines[0].starts_with("0/175 runs (0 %)"), "{}", lines[0]);
        assert!(lines[1].starts_with("18/175 runs (10 %)"), "{}", lines[1]);
        assert!(lines[10].starts_with("175/175 runs (100 %)"), "{}", lines[10]);
        assert!(lines[5].contains("ETA"), "{}", lines[5]);
    }
}
