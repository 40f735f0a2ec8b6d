//! `brainlens sandbox run`: any command in exactly the CodeAct sandbox, for users to check their machine and
//! for the escape tests.

use crate::sandbox::{Spec, prepare, run_to_end};
use anyhow::{Result, anyhow};
use std::path::PathBuf;

/// `sandbox run` arguments.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Mounted read-only at /input.
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// Show only this top-level entry of --input under /input (repeatable), as the bench runner shows a
    /// suite's data folder and not its case files.
    #[arg(long, value_name = "NAME")]
    pub input_only: Vec<String>,
    /// Mounted writable at /workspace (default: a new temporary folder, removed afterwards).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// Address-space limit in MiB.
    #[arg(long, default_value_t = 4096)]
    pub memory_mb: u64,
    /// CPU-time limit in seconds.
    #[arg(long, default_value_t = 900)]
    pub cpu_s: u64,
    /// Processes at most.
    #[arg(long, default_value_t = 128)]
    pub max_procs: u64,
    /// Wall-clock limit in seconds (exit status 124 when hit).
    #[arg(long, default_value_t = 720.0)]
    pub timeout: f64,
    /// Run without bubblewrap (machines without user namespaces). Not a sandbox.
    #[arg(long)]
    pub unsafe_no_sandbox: bool,
    /// Print what protected the run (JSON) on stderr.
    #[arg(long)]
    pub report: bool,
    /// Run under this Python: `codeact` (the CodeAct environment, as the bench runner's kernel has it) or an
    /// interpreter path. Its environment is mounted read-only and a leading `python`/`python3` in the command
    /// is that interpreter.
    #[arg(long, value_name = "codeact|PATH")]
    pub python: Option<String>,
    #[arg(required = true, last = true)]
    pub command: Vec<String>,
}

/// Runs the command; returns its exit status (124 on timeout).
pub fn run(a: RunArgs) -> Result<i32> {
    let RunArgs {
        input,
        input_only,
        workspace,
        memory_mb,
        cpu_s,
        max_procs,
        timeout,
        unsafe_no_sandbox,
        report,
        python,
        mut command,
    } = a;
    // Without --workspace: a fresh folder, removed afterwards.
    let temp =
        workspace.is_none().then(|| std::env::temp_dir().join(format!("brainlens-sandbox-{}", std::process::id())));
    let ws = workspace.or_else(|| temp.clone()).expect("one of the two");
    let mut spec = Spec {
        input,
        input_only,
        workspace: ws,
        memory_mb,
        cpu_s,
        max_procs,
        read_only: Vec::new(),
        binds: Vec::new(),
        unsafe_no_sandbox,
        cwd_input: false,
    };
    if let Some(which) = python {
        let python = if which == "codeact" { crate::sandbox::codeact_python() } else { PathBuf::from(which) };
        if !python.exists() {
            return Err(anyhow!(
                "{}: no such interpreter (the CodeAct environment is made by scripts/setup_python.sh)",
                python.display()
            ));
        }
        spec.mount_python(&python);
        if command.first().is_some_and(|c| c == "python" || c == "python3") {
            command[0] = python.display().to_string();
        }
    }
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
