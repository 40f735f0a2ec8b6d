//! Resource limits of a sandboxed process: rlimits set between fork and exec, and a pids cgroup (v1 or v2)
//! the child joins before it execs, removed (after killing what is left in it) when the limit is dropped.

use super::Spec;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// How the process count is limited.
pub struct ProcessLimit {
    kind: &'static str,
    dir: Option<PathBuf>,
    procs: Option<File>,
}

/// cgroup v1 (`/sys/fs/cgroup/pids`) or v2 (`/sys/fs/cgroup` with the pids controller) roots.
fn cgroup_roots() -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from("/sys/fs/cgroup/pids")];
    if std::fs::read_to_string("/sys/fs/cgroup/cgroup.controllers")
        .is_ok_and(|c| c.split_whitespace().any(|x| x == "pids"))
    {
        roots.push(PathBuf::from("/sys/fs/cgroup"));
    }
    roots
}

impl ProcessLimit {
    pub fn none() -> ProcessLimit {
        ProcessLimit { kind: "none", dir: None, procs: None }
    }

    /// A pids cgroup with `pids.max = max` when one can be made; otherwise RLIMIT_NPROC, which the kernel
    /// ignores for root — so as root without a cgroup this is an error.
    pub fn create(max: u64) -> Result<ProcessLimit, super::error::SandboxError> {
        let mut why = Vec::new();
        for root in cgroup_roots() {
            if !root.join("cgroup.procs").exists() {
                continue;
            }
            let dir = root.join(format!(
                "brainlens-sandbox-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::SeqCst)
            ));
            let made = std::fs::create_dir(&dir)
                .and_then(|_| std::fs::write(dir.join("pids.max"), max.to_string()))
                .and_then(|_| std::fs::OpenOptions::new().write(true).open(dir.join("cgroup.procs")));
            match made {
                Ok(procs) => return Ok(ProcessLimit { kind: "cgroup", dir: Some(dir), procs: Some(procs) }),
                Err(e) => {
                    let _ = std::fs::remove_dir(&dir);
                    why.push(format!("{}: {e}", root.display()));
                }
            }
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            return Err(super::error::SandboxError::Unavailable(format!(
                "cannot limit the number of processes: running as root (RLIMIT_NPROC does not apply) and no pids cgroup could be created ({}); use --unsafe-no-sandbox",
                if why.is_empty() { "no cgroup filesystem".to_string() } else { why.join("; ") }
            )));
        }
        Ok(ProcessLimit { kind: "rlimit", dir: None, procs: None })
    }

    pub fn kind(&self) -> &'static str {
        self.kind
    }
}

impl Drop for ProcessLimit {
    fn drop(&mut self) {
        let Some(dir) = &self.dir else { return };
        // Whatever is left (a fork bomb's children) is killed before the group is removed.
        for _ in 0..50 {
            let pids: Vec<i32> = std::fs::read_to_string(dir.join("cgroup.procs"))
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.trim().parse().ok())
                .collect();
            if pids.is_empty() {
                break;
            }
            for p in pids {
                // SAFETY: kill has no memory-safety preconditions.
                unsafe { libc::kill(p, libc::SIGKILL) };
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = std::fs::remove_dir(dir);
    }
}

fn rlimit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    let l = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
    // SAFETY: setrlimit reads a valid struct; async-signal-safe.
    if unsafe { libc::setrlimit(resource, &l) } != 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
}

/// Sets the limits in the child between fork and exec (only async-signal-safe calls there).
pub fn apply(command: &mut Command, spec: &Spec, limit: &ProcessLimit) {
    let memory = spec.memory_mb.saturating_mul(1 << 20);
    let cpu = spec.cpu_s;
    let nproc = (limit.kind == "rlimit").then_some(spec.max_procs);
    let procs_fd = limit.procs.as_ref().map(|f| f.as_raw_fd());
    // SAFETY: the closure only calls setrlimit, getpid and write on an fd opened by the parent.
    unsafe {
        command.pre_exec(move || {
            if let Some(fd) = procs_fd {
                let mut buf = [0u8; 24];
                let mut n = libc::getpid() as u64;
                let mut i = buf.len();
                loop {
                    i -= 1;
                    buf[i] = b'0' + (n % 10) as u8;
                    n /= 10;
                    if n == 0 {
                        break;
                    }
                }
                let len = buf.len() - i;
                if libc::write(fd, buf[i..].as_ptr().cast(), len) != len as isize {
                    return Err(std::io::Error::last_os_error());
                }
            }
            rlimit(libc::RLIMIT_AS, memory)?;
            rlimit(libc::RLIMIT_CPU, cpu)?;
            if let Some(n) = nproc {
                rlimit(libc::RLIMIT_NPROC, n)?;
            }
            Ok(())
        });
    }
}

/// For `doctor`: how the process count would be limited here.
pub fn describe() -> String {
    match ProcessLimit::create(128) {
        Ok(l) => format!("process limit by {}", l.kind()),
        Err(e) => e.to_string(),
    }
}
