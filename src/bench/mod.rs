//! The Bench core: BrainBench cases, the six validation units, result files, rescoring and the aggregates the
//! Bench room and `brainlens bench` show. See `../shared/BRAINBENCH.md` for the formats and rules.

pub mod aggregate;
pub mod canon;
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
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let path = entry.path();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && keep(&path) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}
