//! Where a submitted run stands: each shard's latest array task (state and elapsed time from Slurm, instances
//! done from its shard file) and the merge job.

use super::commands::{self, JobState, is_terminal};
use super::jobs::{JobsFile, shard_done};
use super::{Result, SlurmError};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ShardStatus {
    pub index: usize,
    /// `ARRAY_TASK`, or None when the shard was never submitted.
    pub job: Option<String>,
    /// Slurm's state, `UNKNOWN` when neither sacct nor squeue knows the job.
    pub state: String,
    pub elapsed: String,
    pub reason: String,
    pub done: usize,
    pub expected: usize,
}

impl ShardStatus {
    pub fn complete(&self) -> bool {
        self.done >= self.expected
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Status {
    pub work: super::Work,
    pub dir: PathBuf,
    pub suite: PathBuf,
    pub shards: Vec<ShardStatus>,
    pub merge_job: Option<String>,
    pub merge_state: String,
    pub merge_reason: String,
    /// `dir/result.json` (`dir/run.jsonl` for an agent evaluation) when it exists.
    pub result: Option<PathBuf>,
    pub done: usize,
    pub expected: usize,
    /// False where Slurm keeps no accounting (no slurmdbd): finished jobs are then `UNKNOWN`.
    pub accounting: bool,
}

impl Status {
    /// Nothing more will happen without the user: the merge ended, or it can never start, or no job is active.
    pub fn settled(&self) -> bool {
        let active = |s: &str| !is_terminal(s) && s != "UNKNOWN";
        // afterok can no longer be satisfied once a task it waits for ended otherwise than COMPLETED (Slurm
        // says DependencyNeverSatisfied only at its next scheduling pass).
        let failed_task =
            self.shards.iter().any(|s| s.job.is_some() && is_terminal(&s.state) && s.state != "COMPLETED");
        let merge_waits_forever =
            self.merge_state == "PENDING" && (self.merge_reason.contains("NeverSatisfied") || failed_task);
        let any_shard_active = self.shards.iter().any(|s| s.job.is_some() && active(&s.state));
        is_terminal(&self.merge_state) || merge_waits_forever || (!any_shard_active && !active(&self.merge_state))
    }

    /// Shards that failed or stopped before finishing their instances.
    pub fn incomplete(&self) -> Vec<usize> {
        self.shards.iter().filter(|s| !s.complete()).map(|s| s.index).collect()
    }

    pub fn fraction(&self) -> f32 {
        if self.expected == 0 { 1.0 } else { self.done as f32 / self.expected as f32 }
    }

    /// The table `bench slurm --status` prints.
    pub fn render(&self) -> String {
        let what = if self.work == super::Work::Bench { "suite" } else { "evaluation on" };
        let mut s =
            format!("{what} {} · {} shard(s) · {}\n", self.suite.display(), self.shards.len(), self.dir.display());
        s += &format!("{:<6} {:<10} {:<30} {:<10} {:>9}\n", "shard", "job", "state", "elapsed", self.work.unit());
        for sh in &self.shards {
            let state = if sh.reason.is_empty() || sh.reason == "None" {
                sh.state.clone()
            } else {
                format!("{} ({})", sh.state, sh.reason)
            };
            s += &format!(
                "{:<6} {:<10} {:<30} {:<10} {:>9}\n",
                sh.index,
                sh.job.as_deref().unwrap_or("-"),
                state,
                sh.elapsed,
                format!("{}/{}", sh.done, sh.expected)
            );
        }
        let merge_state = if self.merge_reason.is_empty() || self.merge_reason == "None" {
            self.merge_state.clone()
        } else {
            format!("{} ({})", self.merge_state, self.merge_reason)
        };
        s += &format!(
            "{:<6} {:<10} {:<30} {}\n",
            "merge",
            self.merge_job.as_deref().unwrap_or("-"),
            merge_state,
            self.result.as_ref().map_or("no merged result yet".to_string(), |p| p.display().to_string())
        );
        s += &format!(
            "progress {}/{} {} ({:.0} %)\n",
            self.done,
            self.expected,
            self.work.unit(),
            100.0 * self.fraction()
        );
        let missing = self.incomplete();
        if self.settled() && !missing.is_empty() {
            s += &format!(
                "shard(s) {missing:?} did not finish: `brainlens {} --resubmit-missing {}` reruns only those (each resumes its file)\n",
                self.work.command(),
                self.dir.display()
            );
        }
        if !self.accounting {
            s += "sacct answered nothing (no accounting on this cluster): finished jobs show as UNKNOWN; the instance counts come from the shard files\n";
        }
        s
    }
}

fn state_of(states: &std::collections::HashMap<String, JobState>, job: Option<&String>) -> JobState {
    job.and_then(|j| states.get(j).cloned()).unwrap_or(JobState {
        state: if job.is_some() { "UNKNOWN".into() } else { "-".into() },
        elapsed: "-".into(),
        reason: String::new(),
    })
}

/// The status of the run recorded in `dir/jobs.json`.
pub fn status(dir: &Path) -> Result<Status> {
    let jobs = JobsFile::load(dir)?.ok_or_else(|| {
        SlurmError::file(
            dir,
            "no jobs.json: nothing was submitted from this folder (bench slurm or agent slurm … --submit)",
        )
    })?;
    status_of(dir, &jobs)
}

/// The status of `jobs` (already read from `dir`): Slurm's states and the shard files' counts.
pub fn status_of(dir: &Path, jobs: &JobsFile) -> Result<Status> {
    let (states, accounting) = commands::states(&jobs.job_ids(), dir)?;
    let mut shards = Vec::new();
    for i in 1..=jobs.shards {
        let job = jobs.task_job(i);
        let st = state_of(&states, job.as_ref());
        shards.push(ShardStatus {
            index: i,
            job,
            state: st.state,
            elapsed: st.elapsed,
            reason: st.reason,
            done: shard_done(dir, i, jobs)?,
            expected: jobs.expected.get(i - 1).copied().unwrap_or(0),
        });
    }
    let merge_job = jobs.merge_job();
    let m = state_of(&states, merge_job.as_ref());
    let result = Some(jobs.work.result_file(dir)).filter(|p| p.exists());
    Ok(Status {
        work: jobs.work,
        dir: dir.to_path_buf(),
        suite: jobs.suite.clone(),
        done: shards.iter().map(|s| s.done.min(s.expected)).sum(),
        expected: shards.iter().map(|s| s.expected).sum(),
        shards,
        merge_job,
        merge_state: m.state,
        merge_reason: m.reason,
        result,
        accounting,
    })
}
