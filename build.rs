//! Embeds the git commit (About box, `--version`) and the linked llama.cpp crate's version (prompt states).
use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=10", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    // --no-optional-locks: status must not rewrite the index it watches below (that made every build rerun
    // this script and rebuild the crate).
    let dirty = Command::new("git")
        .args(["--no-optional-locks", "status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .is_some_and(|o| !o.stdout.is_empty());
    println!("cargo:rustc-env=BRAINLENS_GIT_COMMIT={commit}{}", if dirty { "-dirty" } else { "" });
    // The llama.cpp build the binary links (its crate's version in Cargo.lock): saved prompt states name it, and
    // a state from another build is not used (llm/local/prompt_states.rs).
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let llama = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"llama-cpp-sys-2\""))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=BRAINLENS_LLAMA_BUILD={llama}");
    println!("cargo:rerun-if-changed=Cargo.lock");
    // Where git keeps them: in a linked worktree `.git` is a file, and a path that does not exist would make
    // Cargo rerun this script, and so rebuild the crate, on every build.
    for name in ["HEAD", "index"] {
        if let Some(path) = Command::new("git")
            .args(["rev-parse", "--git-path", name])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|p| std::path::Path::new(p).exists())
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
