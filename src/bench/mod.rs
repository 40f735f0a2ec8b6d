//! The Bench core: BrainBench cases, the six validation units, result files, rescoring and the aggregates the
//! Bench room and `brainlens bench` show. See `../shared/BRAINBENCH.md` for the formats and rules.

pub mod aggregate;
pub mod canonical;
pub mod case;
pub mod collection;
pub mod error;
pub mod families;
pub mod generate;
pub mod json;
pub mod rescore;
pub mod results;
pub mod scoring;
pub mod signal_file;

use std::path::{Path, PathBuf};

/// `root` itself when it is a file, else every file below it that `keep` accepts, sorted by path.
pub fn files_under(root: &Path, keep: impl Fn(&Path) -> bool) -> std::io::Result<Vec<PathBuf>> {
    if root.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    let mut found = Vec::new();
    walk_sorted(root, &keep, &mut found)?;
    Ok(found)
}

/// Depth first, each folder's entries in name order: the order a path sort gives, without comparing whole
/// paths component by component (a suite is tens of thousands of files).
fn walk_sorted(dir: &Path, keep: &impl Fn(&Path) -> bool, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries = std::fs::read_dir(dir)?
        .map(|e| e.and_then(|e| Ok((e.file_name(), e.file_type()?))))
        .collect::<std::io::Result<Vec<_>>>()?;
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in entries {
        let path = dir.join(&name);
        if kind.is_dir() {
            walk_sorted(&path, keep, found)?;
        } else if kind.is_file() && keep(&path) {
            found.push(path);
        }
    }
    Ok(())
}
