//! `labels.csv`: the labelled graphs a case memory, a GFM encoder and a connectome evaluation are built from.

use crate::retrieval::error::{Result, RetrievalError};
use crate::util::error::Context;
use std::path::Path;

/// One row of labels.csv: graph file, label, group.
pub fn read_labels(path: &Path) -> Result<Vec<(String, String, String)>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if line.trim().is_empty() || (n == 0 && cells.first().is_some_and(|c| c.eq_ignore_ascii_case("file"))) {
            continue;
        }
        if cells.len() < 2 || cells[0].is_empty() || cells[1].is_empty() {
            return Err(RetrievalError::from(format!(
                "{} line {}: expected file,label[,group]",
                path.display(),
                n + 1
            )));
        }
        rows.push((cells[0].to_string(), cells[1].to_string(), cells.get(2).unwrap_or(&"").to_string()));
    }
    if rows.is_empty() {
        return Err(RetrievalError::from(format!("{}: no cases", path.display())));
    }
    Ok(rows)
}
