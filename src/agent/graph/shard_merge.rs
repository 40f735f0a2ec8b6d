//! The run files of an evaluation's shards (`agent eval --shard I/N`) merged back into one (`agent merge`): the
//! same header and records an unsharded evaluation writes.

use super::eval::{Header, Record, RunFile, read_run};
use crate::agent::error::{AgentError, Result};
use std::path::{Path, PathBuf};

/// The header fields every shard of one evaluation shares.
fn same_evaluation(a: &Header, b: &Header) -> bool {
    fn key(h: &Header) -> (&str, &str, &str, f64, u64, usize, &[String], &super::method::Settings, &str) {
        (&h.task, &h.method, &h.model, h.split, h.seed, h.runs, &h.test, &h.settings, &h.graphs)
    }
    key(a) == key(b)
}

/// Merges the complete run files of shards 1…N of one evaluation into `out` (written whole, then renamed).
pub fn merge(paths: &[PathBuf], out: &Path) -> Result<RunFile> {
    let runs: Vec<RunFile> = paths.iter().map(|p| read_run(p)).collect::<Result<_>>()?;
    let first = runs.first().ok_or_else(|| AgentError::from("give the shards' run files".to_string()))?;
    let count = first.header.shard.map_or(0, |s| s.count);
    let mut seen = vec![None::<&Path>; count];
    for r in &runs {
        let Some(s) = r.header.shard.filter(|s| s.count == count) else {
            return Err(AgentError::from(format!(
                "{}: not shard i/{count} of an evaluation (its header has shard {:?})",
                r.path.display(),
                r.header.shard.map(|s| format!("{}/{}", s.index, s.count))
            )));
        };
        if !same_evaluation(&first.header, &r.header) {
            return Err(AgentError::from(format!(
                "{}: another evaluation than {} (task, method, model, split, seed, runs, test samples or settings differ)",
                r.path.display(),
                first.path.display()
            )));
        }
        if let Some(other) = seen[s.index - 1].replace(&r.path) {
            return Err(AgentError::from(format!(
                "{} and {}: both are shard {}/{count}",
                other.display(),
                r.path.display(),
                s.index
            )));
        }
        let want = first.header.test.iter().enumerate().filter(|(i, _)| s.holds(*i)).count() * first.header.runs;
        let have = r.records.iter().filter(|x| !x.outcome.rerun_on_resume()).count();
        if have < want {
            return Err(AgentError::from(format!(
                "{}: shard {}/{count} has {have} of its {want} runs; run its `agent eval … --shard {}/{count}` again to finish it",
                r.path.display(),
                s.index,
                s.index
            )));
        }
    }
    if let Some(i) = seen.iter().position(Option::is_none) {
        return Err(AgentError::from(format!("shard {}/{count} is missing among the run files given", i + 1)));
    }
    let header = Header { shard: None, ..first.header.clone() };
    let position = |r: &Record| header.test.iter().position(|t| *t == r.sample).unwrap_or(usize::MAX);
    let mut records: Vec<&Record> = runs.iter().flat_map(|r| &r.records).collect();
    records.sort_by_key(|r| (position(r), r.run));
    let mut text = serde_json::to_string(&header)? + "\n";
    for r in records {
        text += &(serde_json::to_string(r)? + "\n");
    }
    let tmp = out.with_extension("jsonl.partial");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, out))
        .map_err(|e| AgentError::from(format!("{}: cannot write: {e}", out.display())))?;
    read_run(out)
}
