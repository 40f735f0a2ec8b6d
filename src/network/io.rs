//! Connectome files: CSV/TSV/whitespace text (with or without a header row and a label column),
//! BrainNet Viewer `.edge` (a whitespace matrix), NumPy `.npy` and `.npz`, MATLAB v5 `.mat`. Export as CSV,
//! `.npy` and `.edge`.

use super::connectome::{Asymmetry, Connectome};
use super::error::{NetworkError, Result, fail, format, io};
use ndarray::Array2;
use std::path::Path;

/// A 2-D matrix as read from a file: rows, columns, row-major values, labels if the file had them.
pub type RawMatrix = (usize, usize, Vec<f64>, Option<Vec<String>>);

/// Reads a connectome from `path`, choosing the format by extension.
pub fn load(path: &Path, asym: Asymmetry) -> Result<Connectome> {
    let (rows, cols, data, labels) = load_matrix(path)?;
    Connectome::from_matrix(&path.display().to_string(), rows, cols, data, labels, asym)
}

/// Reads any 2-D matrix (a connectome or regions × time series) from `path`.
pub fn load_matrix(path: &Path) -> Result<RawMatrix> {
    let name = path.display().to_string();
    let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    Ok(match ext.as_str() {
        "npy" => {
            let a = read_npy(path)?;
            let (r, c) = a.dim();
            (r, c, a.into_iter().collect(), None)
        }
        "npz" => {
            let a = read_npz(path)?;
            let (r, c) = a.dim();
            (r, c, a.into_iter().collect(), None)
        }
        "mat" => read_mat(path)?,
        "csv" | "tsv" | "txt" | "edge" | "" => {
            let text = std::fs::read_to_string(path).map_err(io(&name, "read"))?;
            parse_text(&name, &text)?
        }
        other => fail!(name, "unknown matrix format '.{other}' (use .csv, .tsv, .txt, .edge, .npy, .npz or .mat)"),
    })
}

fn read_npy(path: &Path) -> Result<Array2<f64>> {
    let name = path.display();
    crate::util::arrays::check_npy_header(path).map_err(|e| format(&name, e))?;
    let f = std::fs::File::open(path).map_err(io(&name, "open"))?;
    match ndarray_npy::ReadNpyExt::read_npy(f) {
        Ok(a) => Ok(a),
        Err(_) => {
            let f = std::fs::File::open(path).map_err(io(&name, "open"))?;
            let a: Array2<f32> = ndarray_npy::ReadNpyExt::read_npy(f)
                .map_err(|e| format(&name, format!("not a 2-D float64/float32 .npy array: {e}")))?;
            Ok(a.mapv(f64::from))
        }
    }
}

/// Names tried, in order, when a MATLAB file holds several matrices (BCT and CONN conventions).
const MAT_NAMES: [&str; 8] = ["W", "CIJ", "A", "conn", "connectivity", "corr", "Z", "M"];

/// Reads a 2-D numeric array from a MATLAB v5 `.mat` file (v7.3 files are HDF5 and not supported), with
/// util::mat5 (every length checked against the bytes present; the matfile crate's parser overflowed on
/// crafted dimensions, found by cargo-fuzz).
fn read_mat(path: &Path) -> Result<RawMatrix> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(io(&name, "read"))?;
    let vars = crate::util::mat5::parse(&bytes)
        .map_err(|e| format(&name, format!("not a MATLAB v5 .mat file ({e}); v7.3 (HDF5) files are not supported")))?;
    let matrices: Vec<(&str, usize, usize, &[f64])> = vars
        .iter()
        .filter_map(|(n, v)| match v {
            crate::util::mat5::Value::Numeric { dims, data } if dims.len() == 2 => {
                Some((n.as_str(), dims[0], dims[1], data.as_slice()))
            }
            _ => None,
        })
        .collect();
    let chosen = match matrices.as_slice() {
        [] => fail!(name, "no 2-D numeric array"),
        [one] => *one,
        many => MAT_NAMES.iter().find_map(|n| many.iter().find(|a| a.0 == *n)).copied().ok_or_else(|| {
            let names: Vec<&str> = many.iter().map(|a| a.0).collect();
            format(
                &name,
                format!(
                    "{} matrices ({}); name one W, CIJ, A, conn, connectivity, corr, Z or M",
                    many.len(),
                    names.join(", ")
                ),
            )
        })?,
    };
    let (_, rows, cols, col_major) = chosen;
    let row_major = (0..rows * cols).map(|k| col_major[(k % cols) * rows + k / cols]).collect();
    Ok((rows, cols, row_major, None))
}

fn read_npz(path: &Path) -> Result<Array2<f64>> {
    let name = path.display();
    crate::util::arrays::check_npz_headers(path).map_err(|e| format(&name, e))?;
    let f = std::fs::File::open(path).map_err(io(&name, "open"))?;
    let mut z = ndarray_npy::NpzReader::new(f).map_err(|e| format(&name, format!("not a .npz archive: {e}")))?;
    let names = z.names().map_err(|e| format(&name, format!("unreadable .npz index: {e}")))?;
    let key = match names.as_slice() {
        [one] => one.clone(),
        many => many.iter().find(|k| k.trim_end_matches(".npy") == "arr_0").cloned().ok_or_else(|| {
            format(&name, format!("{} arrays ({}); expected one, or one named arr_0", many.len(), many.join(", ")))
        })?,
    };
    match z.by_name::<ndarray::OwnedRepr<f64>, ndarray::Ix2>(&key) {
        Ok(a) => Ok(a),
        Err(_) => {
            let a: Array2<f32> = z
                .by_name(&key)
                .map_err(|e| format(&name, format!("array '{key}' is not a 2-D float64/float32 matrix: {e}")))?;
            Ok(a.mapv(f64::from))
        }
    }
}

/// Parses a text matrix: delimiter tab, comma (CSV, quoted labels allowed) or whitespace; an optional header row of labels and an
/// optional first column of labels are recognised by not being numbers.
pub fn parse_text(name: &str, text: &str) -> Result<RawMatrix> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let Some(first) = lines.first() else { fail!(name, "no data") };
    let is_num = |s: &str| s.parse::<f64>().is_ok();
    let mut rows: Vec<Vec<String>> = if first.contains('\t') {
        lines.iter().map(|l| l.split('\t').map(|s| s.trim().to_string()).collect()).collect()
    } else if first.contains(',') {
        // CSV: labels may be quoted, with commas inside ("Frontal_Sup_L, lateral").
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        crate::util::csv_text::records(&body).map_err(|e| format(&name, e))?.into_iter().map(|r| r.fields).collect()
    } else {
        lines.iter().map(|l| l.split_whitespace().map(str::to_string).collect()).collect()
    };
    let mut col_labels = None;
    if rows[0].iter().skip(1).any(|c| !is_num(c)) || (rows[0].len() > 1 && rows[0].iter().all(|c| !is_num(c))) {
        let mut h = rows.remove(0);
        if h.len() > rows.first().map_or(0, Vec::len).saturating_sub(1) && rows.first().is_some_and(|r| !is_num(&r[0]))
        {
            h.remove(0);
        }
        col_labels = Some(h);
    }
    let has_row_labels = !rows.is_empty() && rows.iter().all(|r| !r.is_empty() && !is_num(&r[0]));
    let mut row_labels = Vec::new();
    let mut data = Vec::new();
    let cols = rows.first().map_or(0, |r| r.len() - usize::from(has_row_labels));
    for (i, r) in rows.iter().enumerate() {
        let cells = if has_row_labels {
            row_labels.push(r[0].clone());
            &r[1..]
        } else {
            &r[..]
        };
        if cells.len() != cols {
            fail!(name, "row {} has {} values, the first row has {cols}", i + 1, cells.len());
        }
        for (j, c) in cells.iter().enumerate() {
            let v = match c.to_ascii_lowercase().as_str() {
                "nan" => f64::NAN,
                "inf" | "+inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                _ => c
                    .parse::<f64>()
                    .map_err(|_| format(&name, format!("row {}, column {}: '{c}' is not a number", i + 1, j + 1)))?,
            };
            data.push(v);
        }
    }
    let labels = if has_row_labels { Some(row_labels) } else { col_labels };
    Ok((rows.len(), cols, data, labels))
}

/// Writes the matrix as CSV with a header row and a label column.
pub fn write_csv(path: &Path, c: &Connectome) -> Result<()> {
    let header = std::iter::once("region".to_string()).chain(c.labels.iter().cloned()).collect::<Vec<_>>();
    let rows = (0..c.n).map(|i| {
        std::iter::once(c.labels[i].clone()).chain((0..c.n).map(|j| format!("{}", c.get(i, j)))).collect::<Vec<_>>()
    });
    let s = crate::util::csv_text::write(std::iter::once(header).chain(rows));
    std::fs::write(path, s).map_err(io(&path.display(), "write"))
}

/// Writes the matrix as a BrainNet Viewer `.edge` file (tab-separated, no labels).
pub fn write_edge(path: &Path, c: &Connectome) -> Result<()> {
    let mut s = String::new();
    for i in 0..c.n {
        let row: Vec<String> = (0..c.n).map(|j| format!("{}", c.get(i, j))).collect();
        s.push_str(&row.join("\t"));
        s.push('\n');
    }
    std::fs::write(path, s).map_err(io(&path.display(), "write"))
}

/// Writes the matrix as a float64 `.npy`.
pub fn write_npy(path: &Path, c: &Connectome) -> Result<()> {
    let a = Array2::from_shape_vec((c.n, c.n), c.w.clone()).map_err(|e| {
        NetworkError::Invalid(format!("{}: {} values for {n} × {n}: {e}", path.display(), c.w.len(), n = c.n))
    })?;
    let f = std::fs::File::create(path).map_err(io(&path.display(), "write"))?;
    ndarray_npy::WriteNpyExt::write_npy(&a, f).map_err(|e| format(&path.display(), format!("cannot write: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_with_header_and_labels() {
        let (r, c, d, l) = parse_text("t.csv", "region,A,B\nA,0,0.5\nB,0.5,0\n").unwrap();
        assert_eq!((r, c), (2, 2));
        assert_eq!(d, vec![0.0, 0.5, 0.5, 0.0]);
        assert_eq!(l.unwrap(), vec!["A", "B"]);
        let (r, c, _, l) = parse_text("t.txt", "0 1 2\n1 0 3\n2 3 0\n").unwrap();
        assert_eq!((r, c, l), (3, 3, None));
        let e = parse_text("t.csv", "0,1\n1,x\n").unwrap_err();
        assert!(e.to_string().contains("row 2, column 2: 'x' is not a number"), "{e}");
        // A quoted label with a comma is one label, and a written matrix with such labels reads back.
        let (_, c, _, l) =
            parse_text("t.csv", "\u{feff}region,\"Frontal, left\",B\n\"Frontal, left\",0,1\nB,1,0\n").unwrap();
        assert_eq!((c, l.unwrap()), (2, vec!["Frontal, left".to_string(), "B".into()]));
    }

    /// Found by cargo-fuzz (connectome_read): a connectome `.mat` whose dimensions multiply past i32 made the
    /// matfile crate's parser overflow (a panic with overflow checks, a wrong size without). util::mat5 now
    /// reads it: refused with the file named, and a real 2 × 2 matrix still reads, row-major.
    #[test]
    fn a_mat_file_with_overflowing_dimensions_is_refused() {
        let tag = |kind: u32, data: &[u8]| {
            let mut v = kind.to_le_bytes().to_vec();
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(data);
            while v.len() % 8 != 0 {
                v.push(0);
            }
            v
        };
        let file = |dims: [i32; 2], values: &[f64]| {
            let mut m = tag(6, &[6, 0, 0, 0, 0, 0, 0, 0]); // miUINT32 flags: class double
            m.extend(tag(5, &dims.iter().flat_map(|d| d.to_le_bytes()).collect::<Vec<_>>())); // miINT32 dims
            m.extend(tag(1, b"W")); // miINT8 name
            m.extend(tag(9, &values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>())); // miDOUBLE
            let mut h = vec![b' '; 128];
            h[..10].copy_from_slice(b"MATLAB 5.0");
            h[124..126].copy_from_slice(&0x0100u16.to_le_bytes());
            h[126..128].copy_from_slice(b"IM");
            h.extend(tag(14, &m)); // miMATRIX
            h
        };
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("w.mat");
        std::fs::write(&p, file([65536, 65536], &[1.0])).unwrap();
        let e = load_matrix(&p).unwrap_err().to_string();
        assert!(e.contains("w.mat"), "{e}");
        std::fs::write(&p, file([2, 2], &[1.0, 3.0, 2.0, 4.0])).unwrap();
        assert_eq!(load_matrix(&p).unwrap(), (2, 2, vec![1.0, 2.0, 3.0, 4.0], None));
    }
}
