//! The CodeAct sandbox (Linux): a command under bubblewrap with no network (its own network namespace: only
//! `lo`), a read-only root built from the system's directories (no home directories), inputs read-only at
//! `/input`, a writable `/workspace`, a tmpfs `/tmp`, no capabilities, its own PID/IPC/UTS namespaces, and
//! limits: address space and CPU time (rlimits) and a process count (a pids cgroup when one can be created,
//! else `RLIMIT_NPROC`, which the kernel does not apply to root — then the sandbox refuses to start).

pub mod error;
pub mod kernel;
mod limits;

use error::{SandboxError, io};
use std::path::{Path, PathBuf};
use std::process::Command;

pub use limits::{ProcessLimit, describe as describe_process_limit};

#[derive(Debug, Clone)]
pub struct Spec {
    pub input: Option<PathBuf>,
    /// Only these entries of `input` appear under /input (all of it when empty): a suite's data folder, so
    /// code cannot read the case files and their reference answers.
    pub input_only: Vec<String>,
    pub workspace: PathBuf,
    /// Address-space limit (MiB).
    pub memory_mb: u64,
    /// CPU-time limit (s).
    pub cpu_s: u64,
    pub max_procs: u64,
    /// Extra read-only directories, at the same path inside (the Python environment).
    pub read_only: Vec<PathBuf>,
    /// Read-only binds to another path inside (host, inside), e.g. the kernel driver at /kernel.
    pub binds: Vec<(PathBuf, String)>,
    /// Run without bubblewrap (machines without user namespaces); recorded loudly.
    pub unsafe_no_sandbox: bool,
    /// Start in the (read-only) input folder, so the task's relative paths resolve; else in the workspace.
    pub cwd_input: bool,
}

impl Spec {
    pub fn new(workspace: &Path) -> Spec {
        Spec {
            input: None,
            input_only: Vec::new(),
            workspace: workspace.to_path_buf(),
            memory_mb: 4096,
            cpu_s: 900,
            max_procs: 128,
            read_only: Vec::new(),
            binds: Vec::new(),
            unsafe_no_sandbox: false,
            cwd_input: false,
        }
    }
}

/// What protected a run (stored in a result's `sandbox` audit).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub mode: &'static str,
    pub bwrap: Option<String>,
    pub network: &'static str,
    pub memory_mb: u64,
    pub cpu_s: u64,
    pub max_procs: u64,
    /// `cgroup` (pids.max), `rlimit` (RLIMIT_NPROC) or `none` (unsafe mode).
    pub process_limit: &'static str,
}

/// A prepared sandboxed command and the limit holder that must live as long as the process.
pub struct Prepared {
    pub command: Command,
    pub report: Report,
    pub limit: ProcessLimit,
}

/// System directories bound read-only into the sandbox's root (those that exist).
const SYSTEM_DIRS: [&str; 7] = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt"];

pub fn bwrap_version() -> Option<String> {
    let out = Command::new("bwrap").arg("--version").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The shell command that reruns a CodeAct block by hand in the sandbox the runner used: the CodeAct
/// environment, the instance's inputs read-only at /input and its workspace at /workspace.
pub fn rerun_command(inputs: &str, input_only: &[String], workspace: &str, code: &str) -> String {
    let q = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let only: String = input_only.iter().map(|n| format!(" --input-only {}", q(n))).collect();
    format!(
        "brainlens sandbox run --python codeact --input {}{only} --workspace {} -- python -c {}",
        q(inputs),
        q(workspace),
        q(code)
    )
}

/// The pinned CodeAct environment (`scripts/setup_python.sh` installs exactly this).
pub const CODEACT_LOCK: &str = include_str!("../../assets/python/codeact.lock");

/// The analysis packages of the CodeAct environment: (pip name, import name).
pub const CODEACT_PACKAGES: [(&str, &str); 12] = [
    ("numpy", "numpy"),
    ("scipy", "scipy"),
    ("pandas", "pandas"),
    ("matplotlib", "matplotlib"),
    ("scikit-learn", "sklearn"),
    ("mne", "mne"),
    ("yasa", "yasa"),
    ("pyEDFlib", "pyedflib"),
    ("edfio", "edfio"),
    ("wfdb", "wfdb"),
    ("antropy", "antropy"),
    ("lightgbm", "lightgbm"),
];

/// The pinned version of `pip_name` in the lock.
pub fn codeact_version(pip_name: &str) -> Option<&'static str> {
    CODEACT_LOCK.lines().find_map(|l| {
        let (name, version) = l.split_once("==")?;
        name.trim().eq_ignore_ascii_case(pip_name).then_some(version.trim())
    })
}

/// The CodeAct Python environment `scripts/setup_python.sh` makes (pinned: assets/python/codeact.lock).
pub fn codeact_python() -> PathBuf {
    crate::util::paths::cache_dir().join("codeact-venv/bin/python")
}

impl Spec {
    /// Makes `python`'s environment (the venv and the interpreter it points into) visible read-only inside.
    pub fn mount_python(&mut self, python: &Path) {
        for p in python_prefixes(python) {
            if !self.read_only.contains(&p) && !SYSTEM_DIRS.iter().any(|s| p.starts_with(s)) {
                self.read_only.push(p);
            }
        }
    }
}

/// The interpreter prefix a venv's `python` points into (it must be visible inside the sandbox).
pub fn python_prefixes(python: &Path) -> Vec<PathBuf> {
    let out = Command::new(python).args(["-c", "import sys; print(sys.prefix); print(sys.base_prefix)"]).output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).lines().map(PathBuf::from).collect(),
        _ => Vec::new(),
    }
}

/// Builds the sandboxed command for `argv`. Fails with a message saying why when the sandbox cannot be set
/// up (no bwrap, no user namespaces, no way to limit processes as root) unless `unsafe_no_sandbox`.
pub fn prepare(spec: &Spec, argv: &[String]) -> Result<Prepared, SandboxError> {
    let Some((program, args)) = argv.split_first() else {
        return Err(SandboxError::Invalid("no command to run".into()));
    };
    std::fs::create_dir_all(&spec.workspace).map_err(io(&spec.workspace))?;
    let workspace = spec.workspace.canonicalize().map_err(io(&spec.workspace))?;
    let input = match &spec.input {
        Some(i) => Some(i.canonicalize().map_err(io(i))?),
        None => None,
    };
    if spec.unsafe_no_sandbox {
        let mut command = Command::new(program);
        let cwd = input.as_ref().filter(|_| spec.cwd_input).unwrap_or(&workspace);
        command.args(args).current_dir(cwd);
        let limit = ProcessLimit::none();
        limits::apply(&mut command, spec, &limit);
        let report = Report {
            mode: "UNSAFE: no sandbox (--unsafe-no-sandbox)",
            bwrap: None,
            network: "host network",
            memory_mb: spec.memory_mb,
            cpu_s: spec.cpu_s,
            max_procs: spec.max_procs,
            process_limit: "none",
        };
        return Ok(Prepared { command, report, limit });
    }
    let version = bwrap_version().ok_or_else(|| {
        SandboxError::Unavailable(
            "the CodeAct sandbox needs bubblewrap (apt-get install bubblewrap); on a machine without user namespaces use --unsafe-no-sandbox".into(),
        )
    })?;
    let probe = Command::new("bwrap").args(["--unshare-all", "--ro-bind", "/", "/", "true"]).output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        let why =
            probe.map(|o| String::from_utf8_lossy(&o.stderr).trim().to_string()).unwrap_or_else(|e| e.to_string());
        return Err(SandboxError::Unavailable(format!(
            "bubblewrap cannot create namespaces here ({why}); use --unsafe-no-sandbox to run without a sandbox"
        )));
    }
    let limit = ProcessLimit::create(spec.max_procs)?;
    let mut c = Command::new("bwrap");
    c.args(["--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL", "--hostname", "sandbox"]);
    for d in SYSTEM_DIRS {
        c.args(["--ro-bind-try", d, d]);
    }
    for d in &spec.read_only {
        let d = d.display().to_string();
        c.args(["--ro-bind", &d, &d]);
    }
    c.args(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]);
    for (host, inside) in &spec.binds {
        c.arg("--ro-bind").arg(host).arg(inside);
    }
    if let Some(i) = input.as_ref().filter(|_| spec.input_only.is_empty()) {
        c.arg("--ro-bind").arg(i).arg("/input");
    } else if let Some(i) = &input {
        c.args(["--dir", "/input"]);
        for name in spec.input_only.iter().filter(|n| !n.contains('/') && *n != ".." && i.join(n).exists()) {
            c.arg("--ro-bind").arg(i.join(name)).arg(format!("/input/{name}"));
        }
    } else {
        c.args(["--dir", "/input"]);
    }
    c.arg("--bind").arg(&workspace).arg("/workspace");
    let cwd = if spec.cwd_input && input.is_some() { "/input" } else { "/workspace" };
    c.args(["--remount-ro", "/", "--chdir", cwd, "--clearenv"]);
    for (k, v) in [
        ("HOME", "/workspace"),
        ("TMPDIR", "/tmp"),
        ("LANG", "C.UTF-8"),
        ("MPLBACKEND", "Agg"),
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
    ] {
        c.args(["--setenv", k, v]);
    }
    c.arg("--").arg(program).args(args);
    limits::apply(&mut c, spec, &limit);
    let report = Report {
        mode: "bubblewrap",
        bwrap: Some(version),
        network: "none (own network namespace, lo only)",
        memory_mb: spec.memory_mb,
        cpu_s: spec.cpu_s,
        max_procs: spec.max_procs,
        process_limit: limit.kind(),
    };
    Ok(Prepared { command: c, report, limit })
}

/// How a sandboxed run ended.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Ended {
    /// The exit code, or 128 + signal.
    pub code: i32,
    pub timed_out: bool,
    pub seconds: f64,
}

/// Runs a prepared command to its end or `timeout_s`, then kills it (bubblewrap's PID namespace takes every
/// child with it).
pub fn run_to_end(mut p: Prepared, timeout_s: f64) -> Result<Ended, SandboxError> {
    use std::os::unix::process::ExitStatusExt;
    let t0 = std::time::Instant::now();
    let mut child = p.command.spawn().map_err(|err| SandboxError::Start { what: "sandbox", err })?;
    let deadline = t0 + std::time::Duration::from_secs_f64(timeout_s.max(0.0));
    loop {
        if let Some(status) = child.try_wait().map_err(|err| SandboxError::Start { what: "sandbox", err })? {
            let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
            drop(p.limit);
            return Ok(Ended { code, timed_out: false, seconds: t0.elapsed().as_secs_f64() });
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            drop(p.limit);
            return Ok(Ended { code: 124, timed_out: true, seconds: t0.elapsed().as_secs_f64() });
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_rerun_command_quotes_for_the_shell() {
        let c = super::rerun_command("suite", &["data".into()], "ws dir", "print('it''s')");
        assert_eq!(
            c,
            "brainlens sandbox run --python codeact --input 'suite' --input-only 'data' --workspace 'ws dir' -- python -c 'print('\\''it'\\'''\\''s'\\'')'"
        );
        // The shell gives the code back unchanged.
        let out = std::process::Command::new("sh")
            .args(["-c", &format!("printf %s {}", &c[c.rfind(" -c ").unwrap() + 4..])])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "print('it''s')");
    }
}
