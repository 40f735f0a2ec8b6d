//! `labels.csv`: the labels of a folder of graph files (`file,label[,group]`), which makes the folder a cohort
//! source (`source::Source::folder`) as a cohort file is one.

use crate::network::error::{Result, fail, format, io};
use std::path::Path;

/// One row of labels.csv: graph file, label, group (a header row `file,…` is skipped; fields may be quoted).
pub fn read_labels(path: &Path) -> Result<Vec<(String, String, String)>> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(io(&name, "read"))?;
    let records = crate::util::csv_text::records(&text).map_err(|e| format(&name, e.to_string()))?;
    let mut rows = Vec::new();
    for (n, r) in records.iter().enumerate() {
        if n == 0 && r.get(0).eq_ignore_ascii_case("file") {
            continue;
        }
        if r.get(0).is_empty() || r.get(1).is_empty() {
            fail!(name, "line {}: expected file,label[,group]", r.line);
        }
        rows.push((r.get(0).to_string(), r.get(1).to_string(), r.get(2).to_string()));
    }
    if rows.is_empty() {
        fail!(name, "no labelled graphs");
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_quoted_file_name_with_a_comma_is_one_field() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("labels.csv");
        std::fs::write(&p, "\u{feff}file,label,group\n\"sub-1, run 2.npy\",ASD,\"NYU, A\"\nsub-2.npy,HC\n").unwrap();
        let rows = super::read_labels(&p).unwrap();
        assert_eq!(rows[0], ("sub-1, run 2.npy".into(), "ASD".into(), "NYU, A".into()));
        assert_eq!(rows[1], ("sub-2.npy".into(), "HC".into(), String::new()));
        std::fs::write(&p, "file,label\nsub-3.npy\n").unwrap();
        assert!(super::read_labels(&p).unwrap_err().to_string().contains("line 2"));
    }
}
