//! The persistent Python kernel of a CodeAct instance: one Python process (in the sandbox) running
//! `assets/kernel/driver.py`, which executes code blocks in one namespace and answers each with stdout, the
//! last expression's repr and the traceback, over JSON lines on pipes. A block past its timeout is interrupted
//! inside Python; one that cannot be interrupted is killed with the kernel, which is started again.

use super::error::{SandboxError, io};
use super::{Prepared, Report, Spec, prepare};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

const DRIVER: &str = include_str!("../../assets/kernel/driver.py");

/// Extra seconds after a block's timeout before the kernel is killed (time for the in-Python interrupt).
const GRACE_S: f64 = 5.0;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Execution {
    pub stdout: String,
    pub result: Option<String>,
    pub error: Option<String>,
    pub timed_out: bool,
    /// The kernel was killed and started again (the namespace is lost).
    #[serde(default)]
    pub restarted: bool,
    pub seconds: f64,
    /// On an error: the last line of the last top-level statement that ran before it (none when the first
    /// statement raised), the first line of the statement that raised, and the names the statements that ran
    /// bound (they stay in the namespace; modules left out).
    #[serde(default)]
    pub ran_to: Option<usize>,
    #[serde(default)]
    pub stopped_at: Option<usize>,
    #[serde(default)]
    pub defined: Vec<String>,
    /// Imports left out: a name that does not exist in the environment, which the block does not use
    /// (`module.name`, or the module), so the block ran on.
    #[serde(default)]
    pub skipped: Vec<String>,
    /// On an error, what the environment itself says that helps: for a name a loaded module does not have (an
    /// import or an attribute), what the module has — all its public names when there are at most 60, else the
    /// ones like the missing name; for a call given arguments its function does not take, its signature.
    #[serde(default)]
    pub help: Option<String>,
}

pub struct Kernel {
    spec: Spec,
    python: PathBuf,
    child: Option<(Child, ChildStdin, Receiver<String>, super::ProcessLimit)>,
    pub report: Option<Report>,
    pub restarts: u32,
    next: u64,
}

/// The driver written where the sandbox can bind it (the cache folder).
fn driver_dir() -> Result<PathBuf, SandboxError> {
    let dir = crate::util::paths::cache_dir().join("kernel");
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let file = dir.join("driver.py");
    if std::fs::read_to_string(&file).ok().as_deref() != Some(DRIVER) {
        // One temporary file per writer, threads of one process included: kernels started at once after the
        // driver changed each write theirs (a shared name let one rename the other's away: the second failed).
        static WRITERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = WRITERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!("driver.py.{}.{n}", std::process::id()));
        std::fs::write(&tmp, DRIVER).and_then(|_| std::fs::rename(&tmp, &file)).map_err(io(&file))?;
    }
    Ok(dir)
}

impl Kernel {
    /// Starts a kernel with `python` under `spec` (the interpreter's prefixes are bound read-only).
    pub fn start(spec: &Spec, python: &Path) -> Result<Kernel, SandboxError> {
        let mut k = Kernel::deferred(spec, python);
        k.spawn()?;
        Ok(k)
    }

    /// A kernel that starts at its first block (the hybrid paradigm: an instance that never runs code never
    /// starts one). A sandbox that cannot start is then that block's `Err`.
    pub fn deferred(spec: &Spec, python: &Path) -> Kernel {
        Kernel { spec: spec.clone(), python: python.to_path_buf(), child: None, report: None, restarts: 0, next: 0 }
    }

    /// Whether a kernel process was started (its `report` says how it was protected).
    pub fn started(&self) -> bool {
        self.report.is_some()
    }

    /// The workspace as code inside the kernel sees it (`/workspace` in the sandbox, the real folder without).
    pub fn workspace_inside(&self) -> String {
        if self.spec.unsafe_no_sandbox { self.spec.workspace.display().to_string() } else { "/workspace".into() }
    }

    fn spawn(&mut self) -> Result<(), SandboxError> {
        let dir = driver_dir()?;
        let mut spec = self.spec.clone();
        let driver = if spec.unsafe_no_sandbox {
            dir.join("driver.py").display().to_string()
        } else {
            spec.binds.push((dir, "/kernel".into()));
            spec.mount_python(&self.python);
            "/kernel/driver.py".into()
        };
        let argv = vec![self.python.display().to_string(), "-u".into(), driver];
        let Prepared { mut command, report, limit } = prepare(&spec, &argv)?;
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = command.spawn().map_err(|err| SandboxError::Start { what: "kernel", err })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(SandboxError::Kernel("the kernel has no stdin/stdout pipe".into()));
        };
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        self.report = Some(report);
        self.child = Some((child, stdin, rx, limit));
        Ok(())
    }

    fn kill(&mut self) {
        if let Some((mut child, stdin, _, limit)) = self.child.take() {
            drop(stdin);
            let _ = child.kill();
            let _ = child.wait();
            drop(limit);
        }
    }

    /// Executes one block; errors in the code are in the `Execution`, `Err` only when no kernel can run.
    pub fn exec(&mut self, code: &str, timeout_s: f64) -> Result<Execution, SandboxError> {
        if self.child.is_none() {
            self.spawn()?;
        }
        self.next += 1;
        let id = self.next;
        let req = serde_json::json!({"id": id, "code": code, "timeout": timeout_s});
        let t0 = std::time::Instant::now();
        let (_, stdin, rx, _) = self.child.as_mut().expect("spawned");
        let sent = writeln!(stdin, "{req}").and_then(|_| stdin.flush());
        let wait = Duration::from_secs_f64(timeout_s + GRACE_S);
        let outcome = if sent.is_err() {
            Err(SandboxError::Kernel("the kernel is not running".into()))
        } else {
            loop {
                match rx.recv_timeout(wait.saturating_sub(t0.elapsed())) {
                    Ok(line) => match serde_json::from_str::<serde_json::Value>(&line) {
                        Ok(v) if v["id"] == id => {
                            break serde_json::from_value::<Execution>(v)
                                .map_err(|e| SandboxError::Kernel(format!("unreadable kernel reply: {e}")));
                        }
                        _ => continue,
                    },
                    Err(RecvTimeoutError::Timeout) => {
                        break Err(SandboxError::Timeout(timeout_s));
                    }
                    Err(RecvTimeoutError::Disconnected) => break Err(SandboxError::Kernel("the kernel exited".into())),
                }
            }
        };
        match outcome {
            Ok(e) => Ok(e),
            Err(why) => {
                // Killed and started again: the next block runs in a fresh namespace.
                self.kill();
                self.restarts += 1;
                let timed_out = matches!(why, SandboxError::Timeout(_));
                self.spawn()?;
                Ok(Execution {
                    error: Some(format!("{why}; the kernel was restarted (variables from earlier blocks are lost)")),
                    timed_out,
                    restarted: true,
                    seconds: t0.elapsed().as_secs_f64(),
                    ..Default::default()
                })
            }
        }
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.kill();
    }
}
