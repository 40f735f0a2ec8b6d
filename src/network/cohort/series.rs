//! One subject's ROI time series (`time × regions`, as nilearn and AFNI's `.1D` files hold them): `.1D`
//! text (an optional header line of `#`-prefixed atlas codes, as ABIDE Preprocessed writes; a line of spaces
//! only, as the ADHD-200 files start), or any matrix file `network::io` reads (`.csv`, `.tsv`, `.txt`, `.npy`,
//! `.mat`), rows = time points.

use crate::network::error::{Result, fail, format, io};
use std::path::Path;

/// A subject's series: `volumes × regions` row-major values and the atlas codes of the columns if the file
/// names them.
#[derive(Debug)]
pub struct Series {
    pub volumes: usize,
    pub regions: usize,
    pub values: Vec<f64>,
    pub codes: Option<Vec<String>>,
}

impl Series {
    /// The series restricted to `columns` (in that order).
    pub fn select(&self, columns: &[usize]) -> Series {
        let values =
            (0..self.volumes).flat_map(|t| columns.iter().map(move |&c| self.values[t * self.regions + c])).collect();
        Series {
            volumes: self.volumes,
            regions: columns.len(),
            values,
            codes: self.codes.as_ref().map(|c| columns.iter().map(|&i| c[i].clone()).collect()),
        }
    }

    /// The columns (0-based, in this series' order) whose values never change.
    pub fn constant_columns(&self) -> Vec<usize> {
        (0..self.regions)
            .filter(|&j| {
                let first = self.values[j];
                (1..self.volumes).all(|t| self.values[t * self.regions + j] == first)
            })
            .collect()
    }
}

/// Reads a subject's time series from `path` by extension.
pub fn read(path: &Path) -> Result<Series> {
    let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    if ext == "1d" {
        let text = std::fs::read_to_string(path).map_err(io(&path.display(), "read"))?;
        return parse_1d(&path.display().to_string(), &text);
    }
    let (rows, cols, values, labels) = crate::network::io::load_matrix(path)?;
    // A text file's header row names the columns; a label column would name time points, which is not a series.
    let codes = labels.filter(|l| l.len() == cols);
    Ok(Series { volumes: rows, regions: cols, values, codes })
}

/// Parses `.1D` text: blank lines skipped, a first line of `#` codes taken as the header, every other line
/// one time point of whitespace-separated numbers, all of the same length.
pub fn parse_1d(name: &str, text: &str) -> Result<Series> {
    let mut codes: Option<Vec<String>> = None;
    let mut values = Vec::new();
    let (mut regions, mut volumes, mut first_line) = (0usize, 0usize, 0usize);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('#') {
            if volumes == 0 && codes.is_none() {
                codes = Some(line.split_ascii_whitespace().map(|c| c.trim_start_matches('#').to_string()).collect());
            }
            continue;
        }
        let before = values.len();
        for (j, cell) in line.split_ascii_whitespace().enumerate() {
            let v: f64 = cell
                .parse()
                .map_err(|_| format(&name, format!("line {}, column {}: '{cell}' is not a number", i + 1, j + 1)))?;
            values.push(v);
        }
        let n = values.len() - before;
        if volumes == 0 {
            regions = n;
            first_line = i + 1;
        } else if n != regions {
            fail!(name, "line {}: {n} values, but line {first_line} has {regions}: a ragged row", i + 1);
        }
        volumes += 1;
    }
    if volumes == 0 {
        fail!(name, "no time points");
    }
    if let Some(c) = &codes
        && c.len() != regions
    {
        fail!(name, "the header names {} regions, but the rows have {regions} values", c.len());
    }
    Ok(Series { volumes, regions, values, codes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abide_and_adhd_layouts_and_a_ragged_row() {
        let abide = "#2001\t#2002\t#9001\n1.0\t2.0\t3.0\n4.0\t5.0\t6.5\n";
        let s = parse_1d("a.1D", abide).unwrap();
        assert_eq!((s.volumes, s.regions), (2, 3));
        assert_eq!(s.codes.as_deref().unwrap(), ["2001", "2002", "9001"]);
        assert_eq!(s.select(&[2, 0]).values, vec![3.0, 1.0, 6.5, 4.0]);
        let adhd = "      \n 1 2\n 3 2\n";
        let s = parse_1d("b.1D", adhd).unwrap();
        assert_eq!((s.volumes, s.regions, s.codes.is_none()), (2, 2, true));
        assert_eq!(s.constant_columns(), vec![1]);
        let e = parse_1d("c.1D", "#1 #2\n1 2\n3\n").unwrap_err().to_string();
        assert_eq!(e, "c.1D: line 3: 1 values, but line 2 has 2: a ragged row");
        let e = parse_1d("d.1D", "1 x\n").unwrap_err().to_string();
        assert_eq!(e, "d.1D: line 1, column 2: 'x' is not a number");
        assert!(parse_1d("e.1D", "#1 #2\n1 2 3\n").is_err());
    }
}
