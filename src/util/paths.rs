//! Where BrainLens keeps what it fetches and computes: the cache folder and the model files in it.

use std::path::{Component, Path, PathBuf};

/// A path with its `.` and `name/..` steps taken out, without asking the file system (as Python's
/// `os.path.normpath`): what a user is shown, `…/assets/cases/x` rather than `…/assets/tasks/../cases/x`.
/// A leading `..` of a relative path stays; `..` at the root stays at the root.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            c => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// The model cache: `$BRAINLENS_CACHE`, else `$XDG_CACHE_HOME/brainlens`, else `~/.cache/brainlens`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BRAINLENS_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("brainlens");
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".cache").join("brainlens")
}

/// The model files: `cache_dir()/models`.
pub fn models_dir() -> PathBuf {
    cache_dir().join("models")
}

/// A file or folder BrainLens ships (`assets/…`, `fixtures/…`), found wherever the program runs from:
/// under `$BRAINLENS_DATA` when set, else in the source checkout it was built from, else beside the
/// installed binary (`<bin>/…`, `<bin>/../share/brainlens/…`), else relative to the current folder.
pub fn bundled(rel: &str) -> PathBuf {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("BRAINLENS_DATA").filter(|d| !d.is_empty()) {
        roots.push(PathBuf::from(d));
    }
    roots.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    if let Some(bin) = std::env::current_exe().ok().and_then(|e| e.parent().map(PathBuf::from)) {
        roots.push(bin.join("../share/brainlens"));
        roots.push(bin);
    }
    roots.into_iter().map(|r| r.join(rel)).find(|p| p.exists()).map_or_else(|| PathBuf::from(rel), |p| normalise(&p))
}

#[cfg(test)]
mod tests {
    #[test]
    fn paths_are_shown_without_dot_steps() {
        let n = |p: &str| super::normalise(std::path::Path::new(p));
        assert_eq!(n("/a/assets/tasks/../cases/hcp/graphs"), std::path::PathBuf::from("/a/assets/cases/hcp/graphs"));
        assert_eq!(n("./x/./y/"), std::path::PathBuf::from("x/y"));
        assert_eq!(n("../x/../../y"), std::path::PathBuf::from("../../y"));
        assert_eq!(n("/../x"), std::path::PathBuf::from("/x"));
        assert_eq!(n("a/.."), std::path::PathBuf::from("."));
    }

    #[test]
    fn bundled_files_are_found_from_any_folder() {
        let p = super::bundled("assets/bench/tasks");
        assert!(p.is_absolute() && p.is_dir(), "{}", p.display());
        assert_eq!(super::bundled("no/such/thing"), std::path::PathBuf::from("no/such/thing"));
    }
}
