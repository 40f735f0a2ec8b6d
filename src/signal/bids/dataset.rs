//! Reading a BIDS dataset: its EEG recordings by subject, session, task and run, and each recording's
//! sidecars — `_events.tsv` (onset, duration, `trial_type` or else `value`) as its annotations and
//! `_channels.tsv` `status` = bad as its bad channels. [`crate::signal::Recording::open`] applies the
//! sidecars of any `…_eeg.<ext>` file that has them.

use super::Entities;
use crate::signal::channel_kind::ChannelKind;
use crate::signal::edf::{Annotation, EdfError};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The EEG data formats BIDS allows (a BrainVision recording by its header).
const DATA_EXTENSIONS: [&str; 4] = ["edf", "bdf", "vhdr", "set"];

/// One EEG recording of a dataset.
#[derive(Debug, Clone, Serialize)]
pub struct BidsRecording {
    pub subject: String,
    pub session: Option<String>,
    pub task: String,
    pub run: Option<String>,
    pub path: PathBuf,
}

/// The EEG data files of the dataset at `root` (`sub-*/[ses-*/]eeg/*_eeg.{edf,bdf,vhdr,set}`; a
/// BrainVision recording by its `.vhdr`), sorted by subject, session, task, run.
pub fn recordings(root: &Path) -> Result<Vec<BidsRecording>, EdfError> {
    if !root.join("dataset_description.json").is_file() {
        return Err(EdfError::file(root, "dataset_description.json", "missing: not a BIDS dataset folder"));
    }
    let list = |d: &Path, prefix: &str| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(prefix)))
            .collect();
        v.sort();
        v
    };
    let mut out = Vec::new();
    for sub in list(root, "sub-") {
        let mut eeg_dirs = vec![sub.join("eeg")];
        eeg_dirs.extend(list(&sub, "ses-").into_iter().map(|s| s.join("eeg")));
        for d in eeg_dirs {
            let Ok(entries) = std::fs::read_dir(&d) else { continue };
            for p in entries.flatten().map(|e| e.path()) {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let ext = p.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
                if !name.contains("_eeg.") || !DATA_EXTENSIONS.contains(&ext.as_str()) {
                    continue;
                }
                if let Some(e) = Entities::parse(&name) {
                    out.push(BidsRecording {
                        subject: e.subject,
                        session: e.session,
                        task: e.task,
                        run: e.run,
                        path: p,
                    });
                }
            }
        }
    }
    out.sort_by(|a, b| (&a.subject, &a.session, &a.task, &a.run).cmp(&(&b.subject, &b.session, &b.task, &b.run)));
    Ok(out)
}

/// The sidecar `…_<suffix>.tsv` of a `…_eeg.<ext>` data file, when it exists.
pub fn sidecar(data: &Path, suffix: &str) -> Option<PathBuf> {
    let name = data.file_name()?.to_string_lossy().into_owned();
    let at = name.rfind("_eeg.")?;
    let p = data.with_file_name(format!("{}_{suffix}.tsv", &name[..at]));
    p.is_file().then_some(p)
}

/// A TSV file as its header and rows.
fn table(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), EdfError> {
    let text = std::fs::read_to_string(path).map_err(|e| EdfError::file(path, "open", e.to_string()))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let head: Vec<String> = lines.next().unwrap_or_default().split('\t').map(|s| s.trim().to_string()).collect();
    let rows = lines.map(|l| l.split('\t').map(|s| s.trim().to_string()).collect()).collect();
    Ok((head, rows))
}

/// `_events.tsv` → annotations: onset and duration in seconds (`n/a` duration is none), text from
/// `trial_type`, else `value`, else "n/a".
pub fn events(path: &Path) -> Result<Vec<Annotation>, EdfError> {
    let (head, rows) = table(path)?;
    let col = |n: &str| head.iter().position(|h| h == n);
    let onset = col("onset").ok_or_else(|| EdfError::file(path, "header", "no onset column"))?;
    let duration = col("duration");
    let text = col("trial_type").or_else(|| col("value"));
    let mut out = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let field = |c: usize| r.get(c).map(String::as_str).unwrap_or("n/a");
        let line = format!("line {}", i + 2);
        let onset_s: f64 = field(onset)
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| EdfError::file(path, &line, format!("onset {:?} is not a number", field(onset))))?;
        let duration_s = match duration.map(field) {
            None | Some("n/a") => None,
            Some(d) => Some(d.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).ok_or_else(|| {
                EdfError::file(path, &line, format!("duration {d:?} is not a number of seconds or n/a"))
            })?),
        };
        out.push(Annotation { onset_s, duration_s, text: text.map_or("n/a", field).to_string() });
    }
    out.sort_by(|a, b| a.onset_s.total_cmp(&b.onset_s));
    Ok(out)
}

/// What a `_channels.tsv` says of the channels: the names whose `status` is `bad`, and (name, type) for the
/// types we model.
#[derive(Debug, Default)]
pub struct ChannelsTsv {
    pub bads: Vec<String>,
    pub kinds: Vec<(String, ChannelKind)>,
}

/// Reads a `_channels.tsv` once (`name` column required; `status` and `type` used when present).
pub fn channels_tsv(path: &Path) -> Result<ChannelsTsv, EdfError> {
    let (head, rows) = table(path)?;
    let col = |name: &str| head.iter().position(|h| h == name);
    let name = col("name").ok_or_else(|| EdfError::file(path, "header", "no name column"))?;
    let bads = match col("status") {
        Some(status) => rows
            .iter()
            .filter(|r| r.get(status).is_some_and(|s| s.eq_ignore_ascii_case("bad")))
            .filter_map(|r| r.get(name).cloned())
            .collect(),
        None => Vec::new(),
    };
    let kinds = match col("type") {
        Some(ty) => {
            rows.iter().filter_map(|r| Some((r.get(name)?.clone(), ChannelKind::from_bids(r.get(ty)?)?))).collect()
        }
        None => Vec::new(),
    };
    Ok(ChannelsTsv { bads, kinds })
}
