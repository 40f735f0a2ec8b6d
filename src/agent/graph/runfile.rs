//! A run file of `agent eval`: its header line, then one record per finished (sample, run), read back with
//! the last record of each.

use super::interpret::Scores;
use super::method::Settings;
use super::trace::{OutcomeClass, Trace};
use crate::agent::error::{AgentError, Result};
use crate::util::error::Context;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The first line of a run file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub kind: String,
    pub task: String,
    pub method: String,
    pub model: String,
    pub split: f64,
    pub seed: u64,
    pub runs: usize,
    pub settings: Settings,
    pub test: Vec<String>,
    /// The test samples' sites, in `test`'s order (empty when the source records none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<String>,
    pub memory_cases: usize,
    /// Training samples a supervised baseline or brainagent-hybrid's cohort model learned from (0 for the others).
    #[serde(default)]
    pub training_samples: usize,
    pub graphs: String,
    /// The cohort source evaluated: its kind, file and SHA-256 (None in files written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<crate::network::cohort::source::Origin>,
    /// The shard of the test samples this file runs (`--shard I/N`); None: all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<super::shard::Shard>,
    /// The local model's threads in the process that wrote the header, and why that many (None: no local
    /// model, or a file written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_threads: Option<crate::llm::local::threads::Threads>,
    /// A reflection re-run: the stored run whose replies answered every step before reflection (`reuse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_from: Option<String>,
}

/// One finished run of one sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub kind: String,
    pub sample: String,
    pub truth: String,
    pub run: usize,
    pub seed: u64,
    pub label: Option<String>,
    pub correct: bool,
    pub outcome: OutcomeClass,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub seconds: f64,
    pub interpretability: Scores,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<Scores>,
    pub trace: Trace,
}

/// A run file read back: header and the last record of each (sample, run).
#[derive(Debug, Clone)]
pub struct RunFile {
    pub path: PathBuf,
    pub header: Header,
    pub records: Vec<Record>,
}

pub fn read_run(path: &Path) -> Result<RunFile> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("{}: cannot read the run file", path.display()))?;
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (_, first) = lines.next().ok_or_else(|| AgentError::from(format!("{}: empty run file", path.display())))?;
    let header: Header = serde_json::from_str(first)
        .with_context(|| format!("{} line 1: not a BrainAgent run header", path.display()))?;
    let mut by_key: BTreeMap<(String, usize), Record> = BTreeMap::new();
    let total = text.lines().count();
    for (n, line) in lines {
        match serde_json::from_str::<Record>(line) {
            Ok(r) => {
                by_key.insert((r.sample.clone(), r.run), r);
            }
            // A line cut by a kill mid-write is the last one: that run is simply done again.
            Err(_) if n + 1 == total => {}
            Err(e) => return Err(AgentError::from(format!("{} line {}: {e}", path.display(), n + 1))),
        }
    }
    Ok(RunFile { path: path.to_path_buf(), header, records: by_key.into_values().collect() })
}
