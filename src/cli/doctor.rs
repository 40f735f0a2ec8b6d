//! `brainlens doctor`: what this machine has for BrainLens — the window's libraries and the build's tools
//! (scripts/system_deps.sh, embedded: the check run.sh and .ci/run make), the model files, the CodeAct sandbox
//! (bubblewrap, namespaces, the process limit) and the CodeAct Python environment with its package versions.

use super::write_json;
use anyhow::Result;
use serde_json::{Value, json};
use std::io::Write;
use std::process::Command;

fn python_env() -> Value {
    let python = crate::harness::runner::default_python();
    if !python.exists() {
        return json!({"python": python, "present": false, "fix": "scripts/setup_python.sh"});
    }
    let packages: Vec<&str> = crate::sandbox::CODEACT_PACKAGES.iter().map(|p| p.0).collect();
    let code = format!(
        "import json, importlib.metadata as m\nout = {{}}\nfor p in {packages:?}:\n    try: out[p] = m.version(p)\n    except Exception: out[p] = None\nprint(json.dumps(out))"
    );
    let versions = Command::new(&python)
        .args(["-c", &code])
        .output()
        .ok()
        .and_then(|o| serde_json::from_slice::<Value>(&o.stdout).ok())
        .unwrap_or(Value::Null);
    let want = crate::util::hash::sha256_hex(crate::sandbox::CODEACT_LOCK.as_bytes());
    let stamp = std::fs::read_to_string(
        python.parent().and_then(|b| b.parent()).map(|v| v.join(".lock-sha256")).unwrap_or_default(),
    )
    .map(|s| s.trim().to_string())
    .unwrap_or_default();
    json!({"python": python, "present": true, "packages": versions, "matches_lock": stamp == want})
}

/// The one check of system packages that `scripts/run.sh`, `.ci/run` and `scripts/test.sh` run too.
const SYSTEM_DEPS: &str = include_str!("../../scripts/system_deps.sh");

/// The Debian packages `scripts/system_deps.sh WHAT` finds missing here (`window`: the window's libraries;
/// `build`: what compiling llama.cpp loads). None when the check cannot run (no bash).
fn missing_packages(what: &str) -> Option<Vec<String>> {
    let out = Command::new("bash").args(["-c", SYSTEM_DEPS, "system_deps.sh", what]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).split_whitespace().map(String::from).collect())
}

pub fn doctor(json_out: bool, out: &mut dyn Write) -> Result<()> {
    let window_missing = missing_packages("window").unwrap_or_default();
    let build_missing = missing_packages("build");
    let display = ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
    let model = crate::llm::config::default_model_path();
    let minilm = crate::retrieval::text::MiniLm::default_dir();
    let bwrap = crate::sandbox::bwrap_version();
    let namespaces = bwrap.is_some()
        && Command::new("bwrap")
            .args(["--unshare-all", "--ro-bind", "/", "/", "true"])
            .output()
            .is_ok_and(|o| o.status.success());
    let threads = crate::llm::local::threads::threads();
    let report = json!({
        "version": crate::build_info::VERSION_LINE,
        "model_threads": threads,
        "cache": crate::util::paths::cache_dir(),
        "models": {"local_llm": {"path": model, "present": model.is_file()},
                   "minilm": {"path": minilm, "present": minilm.join("model.safetensors").is_file()}},
        "sandbox": {"bwrap": bwrap, "namespaces": namespaces, "process_limit": crate::sandbox::describe_process_limit()},
        "codeact_python": python_env(),
        "window": {"missing_packages": window_missing, "display": display},
        "build": {"missing_packages": build_missing},
    });
    if json_out {
        return write_json(out, &report);
    }
    let yes = |b: bool| if b { "ok" } else { "MISSING" };
    writeln!(out, "BrainLens {}", crate::build_info::VERSION_LINE)?;
    writeln!(out, "cache               {}", report["cache"].as_str().unwrap_or(""))?;
    writeln!(out, "local model         {} ({})", yes(model.is_file()), model.display())?;
    writeln!(out, "MiniLM              {} ({})", yes(minilm.join("model.safetensors").is_file()), minilm.display())?;
    writeln!(
        out,
        "model threads       {} ({}; --threads N to choose; shards of one run on this machine split the cores)",
        threads.threads, threads.why
    )?;
    if !model.is_file() || !minilm.join("model.safetensors").is_file() {
        writeln!(out, "                    fetch them with scripts/setup_models.sh (scripts/run.sh does)")?;
    }
    if window_missing.is_empty() {
        writeln!(out, "window libraries    ok")?;
    } else {
        writeln!(out, "window libraries    MISSING: sudo apt-get install -y {}", window_missing.join(" "))?;
    }
    match &build_missing {
        Some(m) if m.is_empty() => writeln!(out, "build tools         ok (libclang, clang, cmake, C++ compiler)")?,
        Some(m) => writeln!(
            out,
            "build tools         MISSING, to rebuild BrainLens (llama.cpp is compiled from source): sudo apt-get install -y {}",
            m.join(" ")
        )?,
        None => writeln!(out, "build tools         not checked (bash is missing)")?,
    }
    if display {
        writeln!(out, "display             ok")?;
    } else {
        writeln!(out, "display             none (headless: apt-get install -y xvfb, then xvfb-run -a scripts/run.sh)")?;
    }
    match &report["sandbox"]["bwrap"] {
        Value::String(v) => writeln!(out, "bubblewrap          ok ({v}); namespaces {}", yes(namespaces))?,
        _ => writeln!(
            out,
            "bubblewrap          MISSING (apt-get install bubblewrap); CodeAct needs it or --unsafe-no-sandbox"
        )?,
    }
    writeln!(out, "process limit       {}", report["sandbox"]["process_limit"].as_str().unwrap_or(""))?;
    let py = &report["codeact_python"];
    if py["present"] == true {
        writeln!(
            out,
            "CodeAct Python      ok ({}); matches the lock: {}",
            py["python"].as_str().unwrap_or(""),
            py["matches_lock"]
        )?;
        for (k, v) in py["packages"].as_object().into_iter().flatten() {
            writeln!(out, "  {k:<14} {}", v.as_str().unwrap_or("MISSING"))?;
        }
    } else {
        writeln!(
            out,
            "CodeAct Python      MISSING ({}): run scripts/setup_python.sh",
            py["python"].as_str().unwrap_or("")
        )?;
    }
    Ok(())
}
