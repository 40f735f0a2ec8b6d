//! BIDS-EEG: exporting a recording into a dataset ([`export`]) and reading a dataset's recordings back with
//! their `events.tsv` and `channels.tsv` ([`dataset`]).

pub mod dataset;
pub mod export;

use crate::signal::error::SignalError;
use std::path::{Path, PathBuf};

/// The entities that name one recording: `sub-S[_ses-X]_task-T[_run-N]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entities {
    pub subject: String,
    pub session: Option<String>,
    pub task: String,
    pub run: Option<String>,
}

impl Entities {
    /// Labels must be letters and digits (BIDS).
    pub fn check(&self) -> Result<(), SignalError> {
        export::check_label("subject", &self.subject)?;
        export::check_label("task", &self.task)?;
        if let Some(s) = &self.session {
            export::check_label("session", s)?;
        }
        if let Some(r) = &self.run {
            export::check_label("run", r)?;
        }
        Ok(())
    }

    /// `sub-S[_ses-X]_task-T[_run-N]`.
    pub fn basename(&self) -> String {
        let mut b = format!("sub-{}", self.subject);
        if let Some(s) = &self.session {
            b.push_str(&format!("_ses-{s}"));
        }
        b.push_str(&format!("_task-{}", self.task));
        if let Some(r) = &self.run {
            b.push_str(&format!("_run-{r}"));
        }
        b
    }

    /// `ROOT/sub-S[/ses-X]/eeg`.
    pub fn data_dir(&self, root: &Path) -> PathBuf {
        let mut d = root.join(format!("sub-{}", self.subject));
        if let Some(s) = &self.session {
            d = d.join(format!("ses-{s}"));
        }
        d.join("eeg")
    }

    /// The entities of a BIDS file name (`sub-01_ses-1_task-rest_run-2_eeg.edf`), when it has sub and task.
    pub fn parse(file_name: &str) -> Option<Entities> {
        let stem = file_name.split('.').next()?;
        let mut e = Entities::default();
        for part in stem.split('_') {
            match part.split_once('-') {
                Some(("sub", v)) => e.subject = v.into(),
                Some(("ses", v)) => e.session = Some(v.into()),
                Some(("task", v)) => e.task = v.into(),
                Some(("run", v)) => e.run = Some(v.into()),
                _ => {}
            }
        }
        (!e.subject.is_empty() && !e.task.is_empty()).then_some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let e =
            Entities { subject: "01".into(), session: Some("a".into()), task: "rest".into(), run: Some("2".into()) };
        assert_eq!(e.basename(), "sub-01_ses-a_task-rest_run-2");
        assert_eq!(Entities::parse(&format!("{}_eeg.vhdr", e.basename())), Some(e));
        assert_eq!(Entities::parse("README"), None);
    }
}
