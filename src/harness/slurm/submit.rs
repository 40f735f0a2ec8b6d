//! Submitting: the array and its `afterok` merge (recorded in `jobs.json`), and resubmitting only the shards
//! that are missing or incomplete. Nothing here deletes or truncates a shard file: every task resumes its own.

use super::commands::{self, is_terminal};
use super::jobs::{JobsFile, Submission, check_run_owner, check_shard_owner};
use super::script::{SlurmOptions, check_run_args, write_scripts, write_scripts_in};
use super::status::status_of;
use super::{Result, SlurmError, Work};
use crate::bench::results::ResultFile;
use crate::util::time::utc_now;
use std::path::{Path, PathBuf};

pub struct SubmitRequest<'a> {
    pub work: Work,
    /// The binary every task runs.
    pub brainlens: &'a Path,
    /// The suite, or for an agent evaluation the cohort file or graphs folder it runs on.
    pub suite: &'a Path,
    /// An agent evaluation's runs per shard (a suite's come from its cases).
    pub expected: Option<Vec<usize>>,
    pub run_args: &'a [String],
    pub dir: &'a Path,
    pub options: &'a SlurmOptions,
}

fn absolute(p: &Path, what: &str) -> Result<PathBuf> {
    p.canonicalize().map_err(|e| SlurmError::file(p, format!("{what}: {e}")))
}

/// Refuses a folder that holds another suite's shards (by its jobs.json or its shard files) or whose last
/// submission is still active. Reads only.
fn check_folder(work: Work, dir: &Path, suite: &Path, shards: usize) -> Result<Option<JobsFile>> {
    let old = JobsFile::load(dir)?;
    if let Some(j) = &old
        && (j.work != work || j.suite != suite || j.shards != shards)
    {
        return Err(SlurmError::OtherSuite {
            dir: dir.to_path_buf(),
            other: j.suite.display().to_string(),
            other_shards: j.shards,
            suite: suite.display().to_string(),
            shards,
        });
    }
    match &old {
        // With a jobs.json the status reads every shard file and checks it belongs (`shard_done`).
        Some(j) => {
            let st = status_of(dir, j)?;
            if !st.settled() {
                let mut active: Vec<String> = st
                    .shards
                    .iter()
                    .filter(|s| !is_terminal(&s.state) && s.state != "UNKNOWN")
                    .filter_map(|s| s.job.clone())
                    .collect();
                active.extend(st.merge_job.clone());
                return Err(SlurmError::Active { dir: dir.to_path_buf(), jobs: active.join(", ") });
            }
        }
        // Without one, shard files left by `bench run --shard` must still be this suite's.
        None => {
            let entries = std::fs::read_dir(dir).map_err(|e| SlurmError::file(dir, format!("cannot list: {e}")))?;
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if name.starts_with("shard-") && name.ends_with(".json") && work == Work::Bench {
                    let f = ResultFile::load(&e.path()).map_err(|err| SlurmError::file(&e.path(), err))?;
                    check_shard_owner(&f, &e.path(), dir, suite, shards)?;
                }
                if name.starts_with("shard-") && name.ends_with(".jsonl") && work == Work::AgentEval {
                    let r = crate::agent::graph::eval::read_run(&e.path())
                        .map_err(|err| SlurmError::file(&e.path(), err))?;
                    check_run_owner(&r.header, &e.path(), dir, suite, shards)?;
                }
            }
        }
    }
    Ok(old)
}

/// Writes the scripts, submits the array and the merge (`afterok` on the array), and records both in
/// `dir/jobs.json`. A folder of another suite, or with active jobs, is refused before anything is written.
pub fn submit(req: &SubmitRequest) -> Result<JobsFile> {
    let o = req.options;
    if o.shards == 0 {
        return Err(SlurmError::Invalid("--shards must be at least 1".into()));
    }
    check_run_args(req.run_args)?;
    let suite = absolute(req.suite, "no such suite or data")?;
    std::fs::create_dir_all(req.dir).map_err(|e| SlurmError::file(req.dir, format!("cannot create: {e}")))?;
    let dir = absolute(req.dir, "cannot open")?;
    let old = check_folder(req.work, &dir, &suite, o.shards)?;
    let mut jobs = match (old, &req.expected) {
        (Some(mut j), _) => {
            j.run_args = req.run_args.to_vec();
            j
        }
        (None, Some(expected)) => JobsFile::for_agent(&suite, expected.clone(), req.run_args),
        (None, None) => JobsFile::new(&suite, o.shards, req.run_args)?,
    };
    for c in ["sbatch", "sacct", "squeue"] {
        if commands::which(c).is_none() {
            write_scripts(req.work, req.brainlens, &suite, req.run_args, &dir, o, jobs.shard_order)?;
            return Err(SlurmError::NoCommand { command: c.into(), dir });
        }
    }
    // The scripts are staged and submitted from there; they replace the folder's own only once sbatch took
    // the array, so a refused submission (a wrong partition, say) leaves the folder as it was.
    let staging = dir.join(".staging");
    std::fs::create_dir_all(&staging).map_err(|e| SlurmError::file(&staging, format!("cannot create: {e}")))?;
    let files = write_scripts_in(req.work, req.brainlens, &suite, req.run_args, &dir, &staging, o, jobs.shard_order)?;
    let array = match commands::sbatch(&files[0], &[], &dir) {
        Ok(a) => a,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(match e {
                SlurmError::Refused { command, stderr, .. } => SlurmError::Refused {
                    command,
                    script: Some(dir.join("run_shards.sbatch")),
                    stderr: format!("{stderr} (nothing was submitted and {} was left as it was)", dir.display()),
                },
                e => e,
            });
        }
    };
    let mut sub =
        Submission { at: utc_now(), array_job: Some(array.clone()), tasks: (1..=o.shards).collect(), merge_job: None };
    let merge = commands::sbatch(&files[1], &[format!("--dependency=afterok:{array}")], &dir);
    sub.merge_job = merge.as_ref().ok().cloned();
    // The job ids are recorded first (even when the merge was refused: --resubmit-missing submits it then).
    jobs.submissions.push(sub);
    jobs.save(&dir)?;
    for f in &files {
        let to = dir.join(f.file_name().unwrap_or_default());
        std::fs::rename(f, &to).map_err(|e| SlurmError::file(&to, format!("cannot replace: {e}")))?;
    }
    let _ = std::fs::remove_dir(&staging);
    merge?;
    Ok(jobs)
}

/// Resubmits the shards whose file is missing or incomplete (as one array of just those tasks, each resuming
/// its file) and a new merge after them; cancels the old merge when it waits on a dependency that can no
/// longer be satisfied. Refuses while such a shard's task is still pending or running. Returns the new
/// submission, or None when every shard is complete and the result exists.
pub fn resubmit_missing(dir: &Path) -> Result<Option<Submission>> {
    let dir = absolute(dir, "cannot open")?;
    let mut jobs = JobsFile::load(&dir)?.ok_or_else(|| {
        SlurmError::file(
            &dir,
            "no jobs.json: nothing was submitted from this folder (bench slurm or agent slurm … --submit)",
        )
    })?;
    let st = status_of(&dir, &jobs)?;
    let missing = st.incomplete();
    for s in st.shards.iter().filter(|s| missing.contains(&s.index)) {
        if let Some(job) = &s.job
            && !is_terminal(&s.state)
            && s.state != "UNKNOWN"
        {
            return Err(SlurmError::StillActive { index: s.index, state: s.state.clone(), job: job.clone() });
        }
    }
    let merge_active = st.merge_job.is_some() && !is_terminal(&st.merge_state) && st.merge_state != "UNKNOWN";
    if missing.is_empty() && (st.result.is_some() || merge_active) {
        return Ok(None);
    }
    if let Some(m) = &st.merge_job
        && merge_active
    {
        commands::scancel(m, &dir)?;
    }
    let run = dir.join("run_shards.sbatch");
    let merge_script = dir.join("merge.sbatch");
    for p in [&run, &merge_script] {
        if !p.exists() {
            return Err(SlurmError::file(
                p,
                format!("missing: submit again with `{} … --submit`", jobs.work.command()),
            ));
        }
    }
    let mut sub = Submission { at: utc_now(), array_job: None, tasks: missing.clone(), merge_job: None };
    let mut dep = Vec::new();
    if !missing.is_empty() {
        let list = missing.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        let array = commands::sbatch(&run, &[format!("--array={list}")], &dir)?;
        dep.push(format!("--dependency=afterok:{array}"));
        sub.array_job = Some(array);
    }
    let merge = commands::sbatch(&merge_script, &dep, &dir);
    sub.merge_job = merge.as_ref().ok().cloned();
    jobs.submissions.push(sub.clone());
    jobs.save(&dir)?;
    merge?;
    Ok(Some(sub))
}
