//! `jobs.json` in the output folder: which suite its shards belong to, how many instances each shard holds,
//! and every submission's job ids (the array with its task numbers, and the merge).

use super::script::run_limit;
use super::{Result, SlurmError, Work};
use crate::bench::case::load_cases;
use crate::bench::results::ResultFile;
use crate::harness::runner::ShardOrder;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const JOBS_FILE: &str = "jobs.json";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Submission {
    pub at: String,
    /// The array job id; its tasks are `ARRAY_TASK`.
    pub array_job: Option<String>,
    /// The shard numbers this submission ran (all of them at first, the missing ones after).
    pub tasks: Vec<usize>,
    pub merge_job: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JobsFile {
    /// What the shards run (a suite, when jobs.json does not say).
    #[serde(default)]
    pub work: Work,
    /// The suite (absolute), as the shards' `experiment.subset_root` names it; for an agent evaluation the
    /// cohort file or graphs folder it runs on.
    pub suite: PathBuf,
    pub shards: usize,
    /// Instances per shard (index 0 = shard 1), from the suite and the run's `--limit`.
    pub expected: Vec<usize>,
    /// How a suite's shards were assigned (a jobs.json without it is from before dealing: hash).
    #[serde(default)]
    pub shard_order: ShardOrder,
    pub run_args: Vec<String>,
    pub submissions: Vec<Submission>,
}

impl JobsFile {
    pub fn new(suite: &Path, shards: usize, run_args: &[String]) -> Result<Self> {
        let set = load_cases(suite).map_err(|e| SlurmError::file(suite, e))?;
        let mut cases = set.cases;
        if cases.is_empty() {
            return Err(SlurmError::file(suite, "no valid case files"));
        }
        if let Some(l) = run_limit(run_args) {
            cases.truncate(l);
        }
        let ids: Vec<String> = cases.iter().map(|c| c.instance_id()).collect();
        let mut expected = vec![0; shards];
        for i in ShardOrder::Dealt.assign(&ids, shards) {
            expected[i - 1] += 1;
        }
        Ok(JobsFile {
            work: Work::Bench,
            suite: suite.to_path_buf(),
            shards,
            expected,
            shard_order: ShardOrder::Dealt,
            run_args: run_args.to_vec(),
            submissions: Vec::new(),
        })
    }

    /// An agent evaluation on `data` whose shard `i` holds `expected[i − 1]` runs.
    pub fn for_agent(data: &Path, expected: Vec<usize>, run_args: &[String]) -> Self {
        JobsFile {
            work: Work::AgentEval,
            suite: data.to_path_buf(),
            shards: expected.len(),
            expected,
            shard_order: ShardOrder::Dealt,
            run_args: run_args.to_vec(),
            submissions: Vec::new(),
        }
    }

    pub fn path(dir: &Path) -> PathBuf {
        dir.join(JOBS_FILE)
    }

    /// `dir/jobs.json`, or None when the folder has none.
    pub fn load(dir: &Path) -> Result<Option<Self>> {
        let p = Self::path(dir);
        if !p.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&p).map_err(|e| SlurmError::file(&p, format!("cannot read: {e}")))?;
        serde_json::from_str(&text).map(Some).map_err(|e| SlurmError::file(&p, format!("not a jobs file: {e}")))
    }

    /// Written to a temporary file and renamed, so a reader never sees half of it.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let p = Self::path(dir);
        let tmp = dir.join(format!(".{JOBS_FILE}.tmp"));
        let text = serde_json::to_string_pretty(self).map_err(|e| SlurmError::file(&p, e))?;
        std::fs::write(&tmp, text + "\n").map_err(|e| SlurmError::file(&tmp, format!("cannot write: {e}")))?;
        std::fs::rename(&tmp, &p).map_err(|e| SlurmError::file(&p, format!("cannot replace: {e}")))
    }

    /// The job id of shard `i`'s latest task (`ARRAY_i`), if it was ever submitted.
    pub fn task_job(&self, i: usize) -> Option<String> {
        self.submissions
            .iter()
            .rev()
            .find(|s| s.tasks.contains(&i))
            .and_then(|s| s.array_job.as_ref().map(|a| format!("{a}_{i}")))
    }

    /// The latest merge job.
    pub fn merge_job(&self) -> Option<String> {
        self.submissions.iter().rev().find_map(|s| s.merge_job.clone())
    }

    /// Every job id of the latest tasks and merge (array ids, not tasks: what sacct/squeue take).
    pub fn job_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = (1..=self.shards)
            .filter_map(|i| self.task_job(i))
            .filter_map(|t| t.split('_').next().map(str::to_string))
            .collect();
        ids.extend(self.merge_job());
        ids.sort();
        ids.dedup();
        ids
    }
}

/// Instances (runs) done in shard `i`'s file (0 when there is none yet); an error when the file is another
/// suite's (evaluation's).
pub fn shard_done(dir: &Path, i: usize, jobs: &JobsFile) -> Result<usize> {
    let p = jobs.work.shard_file(dir, i);
    if !p.exists() {
        return Ok(0);
    }
    if jobs.work == Work::AgentEval {
        let r = crate::agent::graph::eval::read_run(&p).map_err(|e| SlurmError::file(&p, e))?;
        check_run_owner(&r.header, &p, dir, &jobs.suite, jobs.shards)?;
        return Ok(r.records.iter().filter(|x| !x.outcome.rerun_on_resume()).count());
    }
    let f = ResultFile::load(&p).map_err(|e| SlurmError::file(&p, e))?;
    check_shard_owner(&f, &p, dir, &jobs.suite, jobs.shards)?;
    Ok(f.instances.len())
}

/// An agent evaluation's shard file must run on `data`, cut into `shards`.
pub fn check_run_owner(
    h: &crate::agent::graph::eval::Header,
    path: &Path,
    dir: &Path,
    data: &Path,
    shards: usize,
) -> Result<()> {
    let count = h.shard.map_or(0, |s| s.count);
    if Path::new(&h.graphs) != data || count != shards {
        return Err(SlurmError::OtherSuite {
            dir: dir.to_path_buf(),
            other: if h.graphs.is_empty() { path.display().to_string() } else { h.graphs.clone() },
            other_shards: count,
            suite: data.display().to_string(),
            shards,
        });
    }
    Ok(())
}

/// A shard file must come from `suite` cut into `shards`.
pub fn check_shard_owner(f: &ResultFile, path: &Path, dir: &Path, suite: &Path, shards: usize) -> Result<()> {
    let root = f.experiment_str("subset_root").unwrap_or("").to_string();
    let count = f.experiment.get("shard").and_then(|s| s.get("count")).and_then(|c| c.as_u64()).unwrap_or(0) as usize;
    if root != suite.display().to_string() || count != shards {
        return Err(SlurmError::OtherSuite {
            dir: dir.to_path_buf(),
            other: if root.is_empty() { path.display().to_string() } else { root },
            other_shards: count,
            suite: suite.display().to_string(),
            shards,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jobs_file_from_before_dealing_reads_as_hashed_and_a_new_one_deals_evenly() {
        let old = r#"{"suite": "/s", "shards": 2, "expected": [33, 21], "run_args": [], "submissions": []}"#;
        let j: JobsFile = serde_json::from_str(old).unwrap();
        assert_eq!((j.work, j.shard_order), (Work::Bench, ShardOrder::Hash));
        let ids: Vec<String> = (0..54).map(|k| format!("case{k}")).collect();
        let mut sizes = [0usize; 4];
        for i in ShardOrder::Dealt.assign(&ids, 4) {
            sizes[i - 1] += 1;
        }
        assert_eq!(sizes, [14, 14, 13, 13]);
        assert_eq!(ShardOrder::Hash.assign(&ids[..1], 4), [crate::harness::runner::shard_of("case0", 4)]);
    }
}
