//! Slurm: the job-array scripts that run a suite's shards and then the merge (`script`), submitting them and
//! recording the job ids in the output folder's `jobs.json` (`submit`, `jobs`), following the tasks through
//! `sacct`/`squeue` and the shard files (`status`), and resubmitting only the shards that are missing or
//! incomplete (`submit::resubmit_missing`). The Slurm commands are run as processes (`commands`); nothing
//! here imitates them.

pub mod commands;
pub mod jobs;
pub mod script;
pub mod status;
pub mod submit;
pub mod work;

use std::path::PathBuf;

pub use jobs::JobsFile;
pub use script::{SlurmOptions, write_scripts};
pub use status::{ShardStatus, Status, status};
pub use submit::{SubmitRequest, resubmit_missing, submit};
pub use work::Work;

/// What went wrong with a Slurm submission or its folder; every variant names the file, folder or job.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    #[error(
        "{command} is not on PATH: submitting needs a machine with the Slurm commands (a login node); the scripts are written in {}, run {}/submit.sh there",
        dir.display(), dir.display()
    )]
    NoCommand { command: String, dir: PathBuf },
    #[error("{command} failed{}: {stderr}", script.as_ref().map_or(String::new(), |s| format!(" on {}", s.display())))]
    Refused { command: String, script: Option<PathBuf>, stderr: String },
    #[error(
        "{}: holds shards of {other} ({other_shards} shards), not of {suite} ({shards} shards); use another --out-dir (nothing was changed)",
        dir.display()
    )]
    OtherSuite { dir: PathBuf, other: String, other_shards: usize, suite: String, shards: usize },
    #[error(
        "{}: jobs {jobs} of the last submission are still pending or running; follow them with `bench slurm --status {}` (nothing was submitted)",
        dir.display(), dir.display()
    )]
    Active { dir: PathBuf, jobs: String },
    #[error(
        "shard {index} is still {state} as job {job}: wait for it or `scancel {job}` first (nothing was submitted)"
    )]
    StillActive { index: usize, state: String, job: String },
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
    #[error("{0}")]
    Invalid(String),
}

impl SlurmError {
    pub(crate) fn file(path: &std::path::Path, message: impl std::fmt::Display) -> Self {
        SlurmError::File { path: path.to_path_buf(), message: message.to_string() }
    }
}

pub type Result<T> = std::result::Result<T, SlurmError>;
