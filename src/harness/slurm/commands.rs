//! The Slurm commands, run as processes: `sbatch --parsable`, `scancel`, and the job states from `sacct`
//! (which needs accounting: slurmdbd) overlaid with `squeue` (the live queue; array tasks expanded with `-r`).

use super::{Result, SlurmError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `command` found on PATH.
pub fn which(command: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(command)).find(|p| p.is_file())
}

fn output(command: &str, args: &[String], script: Option<&Path>, dir: &Path) -> Result<String> {
    let exe =
        which(command).ok_or_else(|| SlurmError::NoCommand { command: command.into(), dir: dir.to_path_buf() })?;
    let out = Command::new(exe).args(args).current_dir(dir).output().map_err(|e| SlurmError::Refused {
        command: command.into(),
        script: script.map(Path::to_path_buf),
        stderr: e.to_string(),
    })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().replace('\n', "; ");
        return Err(SlurmError::Refused { command: command.into(), script: script.map(Path::to_path_buf), stderr });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Submits `script` with the extra options; returns the job id (`--parsable` prints `id` or `id;cluster`).
pub fn sbatch(script: &Path, options: &[String], dir: &Path) -> Result<String> {
    let mut args = vec!["--parsable".to_string()];
    args.extend(options.iter().cloned());
    args.push(script.display().to_string());
    let out = output("sbatch", &args, Some(script), dir)?;
    let id = out.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(SlurmError::Refused {
            command: "sbatch".into(),
            script: Some(script.to_path_buf()),
            stderr: format!("unexpected answer {:?} (expected a job id)", out.trim()),
        });
    }
    Ok(id)
}

pub fn scancel(job: &str, dir: &Path) -> Result<()> {
    output("scancel", &[job.to_string()], None, dir).map(|_| ())
}

/// One job or array task as Slurm reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobState {
    /// PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, …
    pub state: String,
    pub elapsed: String,
    /// squeue's reason for a pending job (e.g. `Dependency`, `DependencyNeverSatisfied`).
    pub reason: String,
}

/// States after which a job does nothing more.
pub fn is_terminal(state: &str) -> bool {
    matches!(
        state,
        "COMPLETED"
            | "FAILED"
            | "CANCELLED"
            | "TIMEOUT"
            | "OUT_OF_MEMORY"
            | "NODE_FAIL"
            | "PREEMPTED"
            | "BOOT_FAIL"
            | "DEADLINE"
            | "REVOKED"
    )
}

/// `12_[1-3,5]` → `12_1`, `12_2`, `12_3`, `12_5`; other ids unchanged. `%4` throttles are dropped.
pub fn expand_ids(id: &str) -> Vec<String> {
    let Some((job, rest)) = id.split_once("_[") else { return vec![id.to_string()] };
    let list = rest.trim_end_matches(']').split('%').next().unwrap_or("");
    let mut out = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    out.extend((a..=b).map(|i| format!("{job}_{i}")));
                }
            }
            None if !part.is_empty() => out.push(format!("{job}_{part}")),
            None => {}
        }
    }
    out
}

/// `sacct -P` lines `JobID|State|Elapsed` (allocations only) → states by id.
pub fn parse_sacct(text: &str) -> HashMap<String, JobState> {
    let mut m = HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() < 3 || f[0].contains('.') {
            continue;
        }
        // "CANCELLED by 0" → CANCELLED.
        let state = f[1].split_whitespace().next().unwrap_or("").to_string();
        for id in expand_ids(f[0]) {
            m.insert(id, JobState { state: state.clone(), elapsed: f[2].to_string(), reason: String::new() });
        }
    }
    m
}

/// `squeue -h -r -t all -o %i|%T|%M|%r` lines → states by id.
pub fn parse_squeue(text: &str) -> HashMap<String, JobState> {
    let mut m = HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.trim().split('|').collect();
        if f.len() < 4 {
            continue;
        }
        for id in expand_ids(f[0]) {
            m.insert(id, JobState { state: f[1].to_string(), elapsed: f[2].to_string(), reason: f[3].to_string() });
        }
    }
    m
}

/// The states of `jobs` (job ids; array tasks come back as `JOB_TASK`): sacct's, overlaid with the live
/// queue's (which keeps finished jobs for MinJobAge, before sacct has them). Where accounting is off sacct fails and only the queue answers; `accounting` says which.
pub fn states(jobs: &[String], dir: &Path) -> Result<(HashMap<String, JobState>, bool)> {
    if jobs.is_empty() {
        return Ok((HashMap::new(), true));
    }
    let list = jobs.join(",");
    let sacct = output(
        "sacct",
        &["-n".into(), "-P".into(), "-X".into(), "--format=JobID,State,Elapsed".into(), "-j".into(), list.clone()],
        None,
        dir,
    );
    let (mut m, accounting) = match sacct {
        Ok(t) => (parse_sacct(&t), true),
        Err(SlurmError::NoCommand { .. }) | Err(SlurmError::Refused { .. }) => (HashMap::new(), false),
        Err(e) => return Err(e),
    };
    // A job that left the queue makes squeue fail ("Invalid job id"); then sacct alone answers.
    if let Ok(t) = output(
        "squeue",
        &["-h".into(), "-r".into(), "-t".into(), "all".into(), "-o".into(), "%i|%T|%M|%r".into(), "-j".into(), list],
        None,
        dir,
    ) {
        m.extend(parse_squeue(&t));
    } else if which("squeue").is_none() && !accounting {
        return Err(SlurmError::NoCommand { command: "squeue".into(), dir: dir.to_path_buf() });
    }
    Ok((m, accounting))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_ids_expand_and_states_parse() {
        assert_eq!(expand_ids("12_[1-3,5%2]"), ["12_1", "12_2", "12_3", "12_5"]);
        assert_eq!(expand_ids("13"), ["13"]);
        let m = parse_sacct(
            "12_1|COMPLETED|00:00:09\n12_[2-3]|PENDING|00:00:00\n12_1.batch|COMPLETED|00:00:09\n14|CANCELLED by 0|00:00:01\n",
        );
        assert_eq!(m["12_1"].state, "COMPLETED");
        assert_eq!(m["12_3"].state, "PENDING");
        assert_eq!(m["14"].state, "CANCELLED");
        assert!(!m.contains_key("12_1.batch"));
        let q = parse_squeue("13|PENDING|0:00|DependencyNeverSatisfied\n");
        assert_eq!(q["13"].reason, "DependencyNeverSatisfied");
        assert!(is_terminal("TIMEOUT") && !is_terminal("RUNNING"));
    }
}
