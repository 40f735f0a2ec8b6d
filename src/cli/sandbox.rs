//! `brainlens sandbox run`: any command in exactly the CodeAct sandbox, for users to check their machine and
//! for the escape tests.

use crate::sandbox::{Spec, prepare, run_to_end};
use anyhow::{Result, anyhow};
use std::path::PathBuf;

/// Runs the command; returns its exit status (124 on timeout).
#[allow(clippy::too_many_arguments)]
pub fn run(
    input: Option<PathBuf>,
    workspace: Option<PathBuf>,
    memory_mb: u64,
    cpu_s: u64,
    max_procs: u64,
    timeout: f64,
    unsafe_no_sandbox: bool,
    report: bool,
    command: Vec<String>,
) -> Result<i32> {
    // Without --workspace: a fresh folder, removed afterwards.
    let temp =
        workspace.is_none().then(|| std::env::temp_dir().join(format!("brainlens-sandbox-{}", std::process::id())));
    let ws = workspace.or_else(|| temp.clone()).expect("one of the two");
    let spec = Spec {
        input,
        workspace: ws,
        memory_mb,
        cpu_s,
        max_procs,
        read_only: Vec::new(),
        binds: Vec::new(),
        unsafe_no_sandbox,
    };
    if unsafe_no_sandbox {
        eprintln!("brainlens: WARNING: --unsafe-no-sandbox: the command runs with this user's full access and network");
    }
    let p = prepare(&spec, &command).map_err(|e| anyhow!(e))?;
    if report {
        eprintln!("{}", serde_json::to_string(&p.report)?);
    }
    let ended = run_to_end(p, timeout).map_err(|e| anyhow!(e));
    if let Some(t) = temp {
        let _ = std::fs::remove_dir_all(t);
    }
    let ended = ended?;
    if ended.timed_out {
        eprintln!("brainlens: sandbox: timed out after {timeout} s; the command and its children were killed");
    }
    Ok(ended.code)
}
