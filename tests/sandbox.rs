//! The CodeAct sandbox (`brainlens sandbox run`), escape attempts that must fail safely: a connection to a
//! loopback port the host listens on (the sandbox has only its own `lo`; nothing is sent anywhere else), writes
//! to /input, to the root and outside /workspace, reading the host's home, a fork bomb, memory beyond the
//! limit, sleeping past the timeout; and an artifact reported through `..` or a symbolic link is a recorded
//! violation when scored. Skipped without bubblewrap unless BRAINLENS_REQUIRE_SANDBOX=1 (scripts/test.sh).

mod common;

use brainlens::bench::scoring::{Metric, ScoreContext, score_metric};
use serde_json::json;
use std::path::Path;

fn available() -> bool {
    if brainlens::sandbox::bwrap_version().is_some() {
        return true;
    }
    if std::env::var("BRAINLENS_REQUIRE_SANDBOX").as_deref() == Ok("1") {
        panic!("bubblewrap is missing (apt-get install bubblewrap)");
    }
    eprintln!("skipped: bubblewrap is not installed");
    false
}

/// (exit code, stdout, stderr) of python3 CODE in the sandbox.
fn py(input: &Path, ws: &Path, code: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["sandbox", "run", "--input", input.to_str().unwrap(), "--workspace", ws.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend(["--", "/usr/bin/python3", "-c", code]);
    common::run(&args)
}

#[test]
fn escapes_fail_and_the_sandbox_still_works() {
    if !available() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let (input, ws) = (d.path().join("in"), d.path().join("ws"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(input.join("rec.txt"), "recording").unwrap();
    // A secret in the host's home directory.
    let home = std::env::var("HOME").unwrap();
    let secret = Path::new(&home).join(format!(".brainlens-sandbox-secret-{}", std::process::id()));
    std::fs::write(&secret, "secret").unwrap();
    // A host listener on loopback: the sandbox's 127.0.0.1 is its own, so the connection is refused there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        r#"
import os, socket
print("input", open("/input/rec.txt").read())
print("ifaces", [l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]])
def attempt(name, f):
    try:
        f(); print(name, "ALLOWED")
    except Exception as e:
        print(name, "refused", type(e).__name__)
attempt("write_input", lambda: open("/input/new.txt", "w"))
attempt("write_root", lambda: open("/escape.txt", "w"))
attempt("write_etc", lambda: open("/etc/escape.txt", "w"))
attempt("write_parent", lambda: open("/workspace/../escape.txt", "w"))
attempt("read_home", lambda: open({secret:?}).read())
attempt("list_home", lambda: os.listdir({home:?}))
s = socket.socket(); s.settimeout(2)
attempt("loopback", lambda: s.connect(("127.0.0.1", {port})))
open("/workspace/result.txt", "w").write("ok")
os.makedirs("/workspace/file_check", exist_ok=True)
os.symlink("/etc/hostname", "/workspace/file_check/link.txt")
print("uid", os.getuid(), "caps", open("/proc/self/status").read().split("CapEff:")[1].split()[0])
"#,
        secret = secret.display().to_string(),
        home = home,
        port = port
    );
    let (status, out, err) = py(&input, &ws, &code, &[]);
    std::fs::remove_file(&secret).unwrap();
    assert_eq!(status, 0, "{out}\n{err}");
    assert!(out.contains("input recording"), "{out}");
    assert!(out.contains("ifaces ['lo']"), "{out}");
    for name in ["write_input", "write_root", "write_etc", "write_parent", "read_home", "list_home", "loopback"] {
        assert!(out.contains(&format!("{name} refused")), "{name}: {out}");
    }
    assert!(out.contains("caps 0000000000000000"), "{out}");
    assert!(listener.accept().is_err(), "the host listener must not have received a connection");
    assert_eq!(std::fs::read_to_string(ws.join("result.txt")).unwrap(), "ok");
    assert!(!input.join("new.txt").exists() && !d.path().join("escape.txt").exists());
    // An artifact reported through a symbolic link or `..` is a violation, scored 0 and recorded.
    let ctx = ScoreContext { workspace: Some(ws.clone()), strict: true, ..Default::default() };
    for reported in ["/workspace/file_check/link.txt", "/workspace/../in/rec.txt", "file_check/../../in/rec.txt"] {
        let m =
            Metric::from_value(&json!({"metric_id": "a", "type": "file_status_check", "target_key": "p", "weight": 1,
            "params": {"match_mode": "file_exists"}}));
        let s = score_metric(&json!({"p": reported}), "", &m, &ctx);
        assert_eq!(s.raw_score, 0.0, "{reported}");
        assert!(!s.violations.is_empty(), "{reported}: {:?}", s.evidence);
    }
}

#[test]
fn limits_hold() {
    if !available() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let (input, ws) = (d.path().join("in"), d.path().join("ws"));
    std::fs::create_dir_all(&input).unwrap();
    // Processes: forking stops at the limit (128 in all) with EAGAIN.
    let (status, out, err) = py(
        &input,
        &ws,
        "import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30); os._exit(0)\n        n += 1\nexcept OSError as e:\n    print('stopped', n, e.errno)\n",
        &[],
    );
    assert_eq!(status, 0, "{err}");
    let n: usize = out.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(n < 128 && out.trim().ends_with("11"), "{out}");
    // A real fork bomb is contained and killed at the timeout; nothing of it is left on the host.
    let t0 = std::time::Instant::now();
    let (status, _, err) =
        py(&input, &ws, "import os\nwhile True:\n    try: os.fork()\n    except OSError: pass\n", &["--timeout", "3"]);
    assert_eq!(status, 124, "{err}");
    assert!(err.contains("timed out"), "{err}");
    assert!(t0.elapsed().as_secs() < 20);
    // Memory beyond the limit fails inside.
    let (status, _, err) = py(&input, &ws, "x = bytearray(2 * 1024 ** 3)", &["--memory-mb", "512"]);
    assert_eq!(status, 1);
    assert!(err.contains("MemoryError"), "{err}");
    // Sleeping past the timeout is killed with status 124.
    let (status, _, err) = py(&input, &ws, "import time; time.sleep(30)", &["--timeout", "1"]);
    assert_eq!(status, 124, "{err}");
    // The command's own status comes back.
    let (status, _, _) = py(&input, &ws, "raise SystemExit(7)", &[]);
    assert_eq!(status, 7);
}

#[test]
fn doctor_reports_the_sandbox_and_the_python_environment() {
    let v = common::json(&["doctor", "--json"]);
    assert!(v["version"].as_str().unwrap().starts_with(env!("CARGO_PKG_VERSION")));
    if std::env::var("BRAINLENS_REQUIRE_SANDBOX").as_deref() == Ok("1") {
        assert!(v["sandbox"]["bwrap"].as_str().unwrap().starts_with("bubblewrap"), "{v}");
        assert_eq!(v["sandbox"]["namespaces"], json!(true));
        assert_eq!(v["codeact_python"]["matches_lock"], json!(true), "{v}");
        for p in ["numpy", "scipy", "pandas", "matplotlib", "scikit-learn", "mne", "yasa", "pyEDFlib", "edfio", "wfdb"]
        {
            assert!(v["codeact_python"]["packages"][p].is_string(), "{p}: {v}");
        }
    }
}

#[test]
fn the_codeact_python_runs_in_the_same_sandbox() {
    if !available() {
        return;
    }
    let python = brainlens::sandbox::codeact_python();
    if !python.exists() {
        // scripts/test.sh makes the environment first (scripts/setup_python.sh); then it must be there.
        assert_ne!(std::env::var("BRAINLENS_REQUIRE_SANDBOX").as_deref(), Ok("1"), "{} is missing", python.display());
        eprintln!("skipped: no CodeAct environment at {}", python.display());
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let (input, ws) = (d.path().join("in"), d.path().join("ws"));
    std::fs::create_dir_all(&input).unwrap();
    let code = "import numpy, scipy, mne, socket\nprint('imported', mne.__version__)\n\
                try:\n    socket.create_connection(('1.1.1.1', 80), timeout=2)\n    print('NETWORK')\nexcept OSError:\n    pass\n\
                try:\n    open('/input/x', 'w')\n    print('INPUT WRITABLE')\nexcept OSError:\n    pass\n";
    let (i, w) = (input.to_str().unwrap(), ws.to_str().unwrap());
    let (status, out, err) = common::run(&[
        "sandbox",
        "run",
        "--python",
        "codeact",
        "--input",
        i,
        "--workspace",
        w,
        "--",
        "python",
        "-c",
        code,
    ]);
    assert_eq!(status, 0, "{err}");
    assert!(out.contains("imported 1.13"), "{out}");
    assert!(!out.contains("NETWORK") && !out.contains("INPUT WRITABLE"), "{out}");
    let (status, _, err) = common::run(&["sandbox", "run", "--python", "/no/such/python", "--", "python", "-c", "1"]);
    assert_ne!(status, 0);
    assert!(err.contains("/no/such/python: no such interpreter"), "{err}");
}

#[test]
fn codeact_sees_a_suites_data_but_not_its_case_files() {
    if !available() {
        return;
    }
    // A generated suite: cases (with their reference answers) beside data/.
    let d = tempfile::tempdir().unwrap();
    let suite = d.path().join("suite");
    let (code, _, err) = common::run(&["bench", "generate", "--out", suite.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let set = brainlens::bench::case::load_cases(&suite).unwrap();
    let case =
        set.cases.iter().find(|c| c.raw["agent_input"]["data_path"].as_str().is_some_and(|p| !p.is_empty())).unwrap();
    let only = brainlens::harness::runner::exposed_inputs(case, &suite);
    assert_eq!(only, ["data"]);
    let ws = d.path().join("ws");
    let data = case.raw["agent_input"]["data_path"].as_str().unwrap();
    let probe = format!(
        "import os\nprint(sorted(os.listdir('/input')))\nprint(os.path.exists('/input/{data}'))\nprint(os.path.exists('/input/suite.json'))"
    );
    let (s, w) = (suite.to_str().unwrap(), ws.to_str().unwrap());
    let (status, out, err) = common::run(&[
        "sandbox",
        "run",
        "--input",
        s,
        "--input-only",
        "data",
        "--workspace",
        w,
        "--",
        "/usr/bin/python3",
        "-c",
        &probe,
    ]);
    assert_eq!(status, 0, "{err}");
    assert_eq!(out.trim(), "['data']\nTrue\nFalse", "only the data folder is visible");
}
