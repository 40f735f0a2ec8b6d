//! The hierarchical `shared_state` of a BrainAgent (EEG) run: raw recordings, derived views, temporal labels,
//! events, results, artifacts and planning counters, each entry under a stable id (`rec1`, `v2`, `lab1`,
//! `ev1`, `r3`, `a1`). Tools pass ids, never arrays; the model sees only `summary()`.

use crate::agent::error::{AgentError, Result};
use crate::signal::sleep::hypnogram::Hypnogram;
use crate::signal::view::View;
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// What an id parameter names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Of {
    Recording,
    View,
    Labels,
    Events,
    Result,
}

/// A scoring column of a hypnogram file, and where it came from.
#[derive(Debug, Clone)]
pub struct Labels {
    pub hypnogram: Hypnogram,
    /// The file, as the step named it.
    pub path: String,
    pub column: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecordingInfo {
    /// As the instruction named it (relative to the inputs).
    pub path: String,
    pub description: Value,
}

/// One change of the state, for the trace.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Change {
    pub id: String,
    pub kind: &'static str,
    pub what: String,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Planning {
    pub round: usize,
    pub steps_executed: usize,
    pub steps_failed: usize,
    pub steps_skipped: usize,
}

#[derive(Debug)]
pub struct SharedState {
    /// Inputs (read-only): data paths resolve against it.
    pub inputs: PathBuf,
    /// The instance workspace; artifacts go to `file_check/` inside it.
    pub workspace: PathBuf,
    pub recordings: IndexMap<String, RecordingInfo>,
    pub views: IndexMap<String, View>,
    pub labels: IndexMap<String, Labels>,
    pub events: IndexMap<String, Vec<(f64, String)>>,
    pub results: IndexMap<String, Value>,
    pub artifacts: IndexMap<String, String>,
    pub errors: Vec<String>,
    pub planning: Planning,
    pub changes: Vec<Change>,
    /// The data files the task names, as it writes them (set by `name_task_files`; may not exist).
    pub task_files: Vec<String>,
}

/// Files a path parameter may name.
const DATA_EXTENSIONS: &[&str] =
    &["edf", "bdf", "csv", "tsv", "txt", "npy", "npz", "mat", "fif", "vhdr", "set", "cnt", "gdf"];
const MAX_FILES: usize = 400;

/// The words of `text` that name a data file (see `SharedState::name_task_files`).
pub fn named_files(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let w = word.trim_matches(|c: char| "\"'`,;:()[]{}<>".contains(c)).trim_end_matches(['.', ',', ';', ':']);
        let w = w.trim_matches(|c: char| "\"'`".contains(c));
        let w = w.strip_prefix("./").unwrap_or(w);
        let named = w
            .rsplit_once('.')
            .is_some_and(|(stem, x)| !stem.is_empty() && DATA_EXTENSIONS.contains(&x.to_ascii_lowercase().as_str()));
        if named && !w.contains("://") && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    }
    out
}

/// The column names in the header line of a CSV/TSV table (none for another file or one that cannot be read).
pub fn columns_of(file: &Path) -> Vec<String> {
    use std::io::{BufRead, Read};
    let sep = match file.extension().and_then(|x| x.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("csv") => ',',
        Some("tsv") => '\t',
        _ => return Vec::new(),
    };
    let Ok(f) = std::fs::File::open(file) else { return Vec::new() };
    let mut header = String::new();
    if std::io::BufReader::new(f.take(64 * 1024)).read_line(&mut header).is_err() {
        return Vec::new();
    }
    header
        .trim_end()
        .split(sep)
        .map(|c| c.trim().trim_matches('"'))
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

fn next_id(prefix: &str, n: usize) -> String {
    format!("{prefix}{}", n + 1)
}

impl SharedState {
    pub fn new(inputs: &Path, workspace: &Path) -> SharedState {
        SharedState {
            inputs: inputs.to_path_buf(),
            workspace: workspace.to_path_buf(),
            recordings: IndexMap::new(),
            views: IndexMap::new(),
            labels: IndexMap::new(),
            events: IndexMap::new(),
            results: IndexMap::new(),
            artifacts: IndexMap::new(),
            errors: Vec::new(),
            planning: Planning::default(),
            changes: Vec::new(),
            task_files: Vec::new(),
        }
    }

    fn note(&mut self, id: &str, kind: &'static str, what: String) {
        self.changes.push(Change { id: id.to_string(), kind, what });
    }

    pub fn add_recording(&mut self, info: RecordingInfo) -> String {
        let id = next_id("rec", self.recordings.len());
        self.note(&id, "recording", info.path.clone());
        self.recordings.insert(id.clone(), info);
        id
    }

    pub fn add_view(&mut self, v: View) -> String {
        let id = next_id("v", self.views.len());
        self.note(
            &id,
            "view",
            format!("{} ch @ {} Hz, {:.2} s; {}", v.labels.len(), v.sfreq, v.duration_s(), v.ops.join("; ")),
        );
        self.views.insert(id.clone(), v);
        id
    }

    /// Registers column `column` of the hypnogram file `path` (as the step named it).
    pub fn add_labels(&mut self, hypnogram: Hypnogram, path: &str, column: &str) -> String {
        let id = next_id("lab", self.labels.len());
        self.note(&id, "labels", format!("{path} column {column}"));
        self.labels.insert(id.clone(), Labels { hypnogram, path: path.to_string(), column: column.to_string() });
        id
    }

    /// The labels id that holds column `column` of file `path`, if one does.
    pub fn labels_of(&self, path: &str, column: &str) -> Option<&str> {
        self.labels.iter().find(|(_, l)| l.path == path && l.column == column).map(|(k, _)| k.as_str())
    }

    pub fn add_events(&mut self, e: Vec<(f64, String)>) -> String {
        let id = next_id("ev", self.events.len());
        self.note(&id, "events", format!("{} events", e.len()));
        self.events.insert(id.clone(), e);
        id
    }

    pub fn add_result(&mut self, what: &str, v: Value) -> String {
        let id = next_id("r", self.results.len());
        self.note(&id, "result", what.to_string());
        self.results.insert(id.clone(), json!({"what": what, "value": v}));
        id
    }

    pub fn add_artifact(&mut self, rel: String) -> String {
        let id = next_id("a", self.artifacts.len());
        self.note(&id, "artifact", rel.clone());
        self.artifacts.insert(id.clone(), rel);
        id
    }

    pub fn view(&self, id: &str) -> Result<&View, AgentError> {
        self.views.get(id).ok_or_else(|| format!("no view {id:?} (views: {})", keys(&self.views)).into())
    }

    pub fn result(&self, id: &str) -> Result<&Value, AgentError> {
        self.results
            .get(id)
            .map(|r| &r["value"])
            .ok_or_else(|| format!("no result {id:?} (results: {})", keys(&self.results)).into())
    }

    /// The path of a registered file that is a table (an inspected CSV): no recording tool reads one.
    pub fn table(&self, id: &str) -> Option<&str> {
        self.recordings.get(id).filter(|r| r.description["type"] == "csv").map(|r| r.path.as_str())
    }

    /// The ids of one kind, in registration order; recordings are the signal files (an inspected table is
    /// listed in the summary but is no tool's recording: the 1.5B model passed one to `load_channels` in 18 of
    /// the suite's 54 instances).
    pub fn ids(&self, of: Of) -> Vec<String> {
        match of {
            Of::Recording => self.recordings.keys().filter(|k| self.table(k).is_none()).cloned().collect(),
            Of::View => self.views.keys().cloned().collect(),
            Of::Labels => self.labels.keys().cloned().collect(),
            Of::Events => self.events.keys().cloned().collect(),
            Of::Result => self.results.keys().cloned().collect(),
        }
    }

    /// Data files under the inputs (relative, `/`-separated, sorted; at most `MAX_FILES`): what a path
    /// parameter may name.
    pub fn input_files(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![self.inputs.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| DATA_EXTENSIONS.contains(&x.to_ascii_lowercase().as_str()))
                    && let Ok(rel) = path.strip_prefix(&self.inputs)
                {
                    out.push(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
                }
            }
        }
        out.sort();
        out.truncate(MAX_FILES);
        out
    }

    /// Records the data files `query` names: words ending in a data extension, without surrounding quotes,
    /// brackets or sentence punctuation (each once, in order).
    pub fn name_task_files(&mut self, query: &str) {
        self.task_files = named_files(query);
    }

    /// What a path parameter may name: the files the task names when it names any (a task's data is the file
    /// it gives: measured with Qwen2.5-Coder-1.5B, a sub-agent offered every input file picks one that fits
    /// its own role — PhysiolAgent the ECG recording for an EEG task), else every data file of the inputs.
    pub fn path_options(&self) -> Vec<String> {
        if self.task_files.is_empty() { self.input_files() } else { self.task_files.clone() }
    }

    /// Column names in the header lines of the CSV/TSV tables under the inputs (each once, in file order):
    /// what a column parameter may name.
    pub fn table_columns(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for f in self.input_files() {
            for name in columns_of(&self.inputs.join(&f)) {
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }

    /// Channel labels of the views and inspected recordings (each once, first seen first).
    pub fn channel_labels(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let from_recordings = self
            .recordings
            .values()
            .filter_map(|r| r.description["labels"].as_array())
            .flat_map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect::<Vec<_>>());
        for l in self.views.values().flat_map(|v| v.labels.iter().cloned()).chain(from_recordings) {
            if !out.contains(&l) {
                out.push(l);
            }
        }
        out
    }

    /// Whether `id` names anything in the state.
    pub fn has(&self, id: &str) -> bool {
        self.recordings.contains_key(id)
            || self.views.contains_key(id)
            || self.labels.contains_key(id)
            || self.events.contains_key(id)
            || self.results.contains_key(id)
            || self.artifacts.contains_key(id)
    }

    /// The compact, identifier-based view of the state the model plans from.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let section = |s: &mut String, name: &str, lines: Vec<String>| {
            s.push_str(&format!("{name}: {}\n", if lines.is_empty() { "none".to_string() } else { String::new() }));
            for l in lines {
                s.push_str(&format!("  {l}\n"));
            }
        };
        section(
            &mut s,
            "recordings (files inspected)",
            self.recordings.iter().map(|(k, r)| format!("{k} {} {}", r.path, short(&r.description))).collect(),
        );
        section(
            &mut s,
            "views (channels loaded, and what was done to them)",
            self.views
                .iter()
                .map(|(k, v)| {
                    format!("{k} {} ch @ {} Hz {:.1} s [{}]", v.labels.len(), v.sfreq, v.duration_s(), v.ops.join("; "))
                })
                .collect(),
        );
        section(
            &mut s,
            "labels (hypnograms loaded)",
            self.labels
                .iter()
                .map(|(k, l)| format!("{k} column {} of {}: {} epochs", l.column, l.path, l.hypnogram.stages.len()))
                .collect(),
        );
        section(&mut s, "events (read)", self.events.iter().map(|(k, e)| format!("{k} {} events", e.len())).collect());
        section(
            &mut s,
            "results (measured)",
            self.results
                .iter()
                .map(|(k, r)| format!("{k} {}: {}", r["what"].as_str().unwrap_or(""), short(&r["value"])))
                .collect(),
        );
        section(&mut s, "artifacts (written)", self.artifacts.iter().map(|(k, a)| format!("{k} {a}")).collect());
        if !self.errors.is_empty() {
            section(&mut s, "errors", self.errors.iter().rev().take(3).cloned().collect());
        }
        s.push_str(&format!(
            "planning: round {}, {} steps executed, {} failed, {} skipped\n",
            self.planning.round, self.planning.steps_executed, self.planning.steps_failed, self.planning.steps_skipped
        ));
        s
    }
}

fn keys<V>(m: &IndexMap<String, V>) -> String {
    if m.is_empty() { "none".into() } else { m.keys().cloned().collect::<Vec<_>>().join(", ") }
}

/// A value cut to 200 characters for the summary.
pub fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 { format!("{}…", s.chars().take(200).collect::<String>()) } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_a_task_names_are_its_path_options() {
        let q = "Load the data file: data/eeg/rec.edf\n\nInstruction: compare it with `data/hyp/s1.csv`, \
                 band-pass 0.5-40.0 Hz (see ./data/eeg/rec.edf). Labels in \"labels.tsv\".";
        assert_eq!(named_files(q), ["data/eeg/rec.edf", "data/hyp/s1.csv", "labels.tsv"]);
        assert!(named_files("Report the mean alpha power (8.0-13.0 Hz) in percent.").is_empty());
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("data")).unwrap();
        std::fs::write(d.path().join("data/a.edf"), b"").unwrap();
        std::fs::write(d.path().join("data/b.csv"), b"").unwrap();
        let mut st = SharedState::new(d.path(), d.path());
        st.name_task_files("Report the alpha power.");
        assert_eq!(st.path_options(), ["data/a.edf", "data/b.csv"], "no file named: every input file");
        st.name_task_files("Load the data file: data/missing.edf");
        assert_eq!(st.path_options(), ["data/missing.edf"], "a named file that is not there stays: its tool says so");
    }
}
