//! The `--atlas` argument of the network subcommands.

use crate::network::atlas::Atlas;
use anyhow::Result;

/// Atlas `spec`; `auto` infers it as the Networks room does (`network::atlas::infer`) and says which on stderr.
pub fn atlas_of(spec: &str, n: usize, file: &std::path::Path) -> Result<Option<Atlas>> {
    if spec.eq_ignore_ascii_case("auto") {
        let (a, note) = crate::network::atlas::infer(file, n);
        eprintln!("brainlens: {}: {note}", file.display());
        return Ok(a);
    }
    Ok(Some(Atlas::load(spec)?))
}
