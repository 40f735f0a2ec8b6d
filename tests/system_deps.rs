//! The one check of system packages (scripts/system_deps.sh: run.sh, .ci/run, test.sh and `doctor` share it)
//! on the `ldconfig -p` listings of this image before and after libclang-dev was installed
//! (fixtures/system/), with commands that run, that are missing, or that are installed but broken.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

fn check(listing: &str, bin_dir: &Path, what: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(root.join("scripts/system_deps.sh"))
        .args(["--ldconfig", root.join("fixtures/system").join(listing).to_str().unwrap()])
        .args(["--bin-dir", bin_dir.to_str().unwrap(), what])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).split_whitespace().map(String::from).collect()
}

/// A command in `dir` whose `--version` exits with `code`.
fn command(dir: &Path, name: &str, code: i32) {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\necho {name} 1.0\nexit {code}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn libclang_cpp_alone_is_not_the_libclang_bindgen_loads() {
    let tools = tempfile::tempdir().unwrap();
    for c in ["clang", "cmake", "c++"] {
        command(tools.path(), c, 0);
    }
    // The fresh image: only libclang-cpp.so.14, which `ldconfig -p | grep libclang` took for libclang.
    assert_eq!(check("ldconfig-without-libclang.txt", tools.path(), "build"), ["libclang-dev"]);
    assert!(check("ldconfig-with-libclang.txt", tools.path(), "build").is_empty());
    // The window's libraries are on both.
    assert!(check("ldconfig-without-libclang.txt", tools.path(), "window").is_empty());
}

#[test]
fn commands_must_run_not_only_exist() {
    let none = tempfile::tempdir().unwrap();
    assert_eq!(check("ldconfig-with-libclang.txt", none.path(), "build"), ["clang", "cmake", "g++"]);
    assert_eq!(
        check("ldconfig-without-libclang.txt", none.path(), "build"),
        ["libclang-dev", "clang", "cmake", "g++"],
        "the fresh image as the newcomer met it"
    );
    let broken = tempfile::tempdir().unwrap();
    command(broken.path(), "clang", 1); // a dangling alternative or a half-removed package
    command(broken.path(), "cmake", 0);
    command(broken.path(), "c++", 0);
    assert_eq!(check("ldconfig-with-libclang.txt", broken.path(), "build"), ["clang"]);
}

#[test]
fn a_listing_without_the_window_libraries_names_their_packages() {
    let dir = tempfile::tempdir().unwrap();
    let listing = dir.path().join("listing.txt");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let full = std::fs::read_to_string(root.join("fixtures/system/ldconfig-with-libclang.txt")).unwrap();
    let without: String = full
        .lines()
        .filter(|l| !l.contains("libEGL.so.1") && !l.contains("libXi.so.6"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&listing, without).unwrap();
    let out = Command::new("bash")
        .arg(root.join("scripts/system_deps.sh"))
        .args(["--ldconfig", listing.to_str().unwrap(), "--bin-dir", dir.path().to_str().unwrap(), "window"])
        .output()
        .unwrap();
    let missing: Vec<String> = String::from_utf8_lossy(&out.stdout).split_whitespace().map(String::from).collect();
    assert_eq!(missing, ["libegl1", "libxi6"]);
    let usage = Command::new("bash").arg(root.join("scripts/system_deps.sh")).arg("everything").output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
}
