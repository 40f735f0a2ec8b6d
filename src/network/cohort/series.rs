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

fn is_1d(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("1d"))
}

/// Reads a subject's time series from `path` by extension.
pub fn read(path: &Path) -> Result<Series> {
    if is_1d(path) {
        // One text buffer per thread, reused from file to file: a fresh one per file is fresh pages the
        // kernel zeroes (a cohort is hundreds of files of a few hundred kB).
        thread_local! { static TEXT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) } }
        return TEXT.with_borrow_mut(|text| {
            use std::io::Read;
            text.clear();
            std::fs::File::open(path).and_then(|mut f| f.read_to_end(text)).map_err(io(&path.display(), "read"))?;
            parse_1d_bytes(&path.display().to_string(), text)
        });
    }
    let (rows, cols, values, labels) = crate::network::io::load_matrix(path)?;
    // A text file's header row names the columns; a label column would name time points, which is not a series.
    let codes = labels.filter(|l| l.len() == cols);
    Ok(Series { volumes: rows, regions: cols, values, codes })
}

/// The number of regions of the series at `path` and its atlas codes, from its first rows only (`.1D`; other
/// formats are read whole).
pub fn peek(path: &Path) -> Result<(usize, Option<Vec<String>>)> {
    if !is_1d(path) {
        let s = read(path)?;
        return Ok((s.regions, s.codes));
    }
    use std::io::BufRead;
    let f = std::fs::File::open(path).map_err(io(&path.display(), "open"))?;
    let mut codes = None;
    for line in std::io::BufReader::new(f).split(b'\n') {
        let line = line.map_err(io(&path.display(), "read"))?;
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if text.starts_with('#') {
            codes.get_or_insert_with(|| {
                text.split_ascii_whitespace().map(|c| c.trim_start_matches('#').to_string()).collect()
            });
            continue;
        }
        return Ok((text.split_ascii_whitespace().count(), codes));
    }
    fail!(path.display(), "no time points")
}

/// Parses `.1D` text: blank lines skipped, a first line of `#` codes taken as the header, every other line
/// one time point of whitespace-separated numbers, all of the same length.
pub fn parse_1d(name: &str, text: &str) -> Result<Series> {
    parse_1d_bytes(name, text.as_bytes())
}

fn parse_1d_bytes(name: &str, text: &[u8]) -> Result<Series> {
    let mut codes: Option<Vec<String>> = None;
    let mut values = Vec::with_capacity(text.len() / 9);
    let (mut regions, mut volumes, mut first_line) = (0usize, 0usize, 0usize);
    let (mut i, mut line, n) = (0usize, 1usize, text.len());
    let blank = |b: u8| b == b' ' || b == b'\t' || b == b'\r' || b == 0x0b || b == 0x0c;
    while i < n {
        while i < n && blank(text[i]) {
            i += 1;
        }
        if i < n && text[i] == b'#' {
            let end = text[i..].iter().position(|&b| b == b'\n').map_or(n, |e| i + e);
            if volumes == 0 && codes.is_none() {
                let header = String::from_utf8_lossy(&text[i..end]);
                codes = Some(header.split_ascii_whitespace().map(|c| c.trim_start_matches('#').to_string()).collect());
            }
            i = end;
        }
        let before = values.len();
        while i < n && text[i] != b'\n' {
            if blank(text[i]) {
                i += 1;
                continue;
            }
            if let Some((v, len)) = decimal(&text[i..]) {
                values.push(v);
                i += len;
                continue;
            }
            let token_end = text[i..].iter().position(|b| b.is_ascii_whitespace()).map_or(n, |e| i + e);
            let token = &text[i..token_end];
            let v = fast_float2::parse(token).map_err(|_| {
                let column = values.len() - before + 1;
                let cell = String::from_utf8_lossy(token);
                format(&name, format!("line {line}, column {column}: '{cell}' is not a number"))
            })?;
            values.push(v);
            i = token_end;
        }
        let count = values.len() - before;
        if count > 0 {
            if volumes == 0 {
                regions = count;
                first_line = line;
            } else if count != regions {
                fail!(name, "line {line}: {count} values, but line {first_line} has {regions}: a ragged row");
            }
            volumes += 1;
        }
        i += 1;
        line += 1;
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

/// Powers of ten a double holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// A plain decimal (`-12.345678`, no exponent) at the start of `text`, ending at whitespace or the end,
/// whose digits fit in 2^53: `digits / 10^k`, both exact in a double, so the one division is correctly rounded
/// — the value `str::parse` gives (Clinger's fast path). Returns the value and the bytes it took; `None` for
/// anything else (the caller's full parser decides).
fn decimal(text: &[u8]) -> Option<(f64, usize)> {
    let negative = text.first() == Some(&b'-');
    let mut i = usize::from(negative || text.first() == Some(&b'+'));
    let (mut mantissa, mut fraction, mut seen_point, mut count) = (0u64, 0usize, false, 0usize);
    while let Some(&b) = text.get(i) {
        if b.is_ascii_digit() {
            mantissa = mantissa * 10 + u64::from(b - b'0');
            count += 1;
            fraction += usize::from(seen_point);
            if count > 15 {
                return None;
            }
        } else if b == b'.' && !seen_point {
            seen_point = true;
        } else if b.is_ascii_whitespace() {
            break;
        } else {
            return None;
        }
        i += 1;
    }
    if count == 0 || fraction >= POW10.len() {
        return None;
    }
    let v = mantissa as f64 / POW10[fraction];
    Some((if negative { -v } else { v }, i))
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
        let s = parse_1d("f.1D", "1e3 -0 .5\r\n  \r\n7. -2.25e-1 nan\n12345678901234567890123 0 0\n").unwrap();
        assert_eq!(s.values[..5], [1000.0, -0.0, 0.5, 7.0, -0.225]);
        assert!(s.values[1].is_sign_negative() && s.values[5].is_nan());
    }

    /// The fast path gives exactly what `str::parse` gives, on decimals like the cohorts' (up to 15 digits).
    #[test]
    fn decimals_parse_exactly_as_the_standard_library() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = (x % 15 + 1) as usize;
            let point = (x >> 8) as usize % (digits + 1);
            let mut t: String =
                (0..digits).map(|k| char::from(b'0' + (x.rotate_right(k as u32 * 4 + 16) % 10) as u8)).collect();
            t.insert(point, '.');
            if x & 1 == 1 {
                t.insert(0, '-');
            }
            if t == "." || t == "-." {
                continue;
            }
            let want: f64 = t.parse().unwrap();
            assert_eq!(decimal(t.as_bytes()).map(|(v, n)| (v.to_bits(), n)), Some((want.to_bits(), t.len())), "{t}");
        }
    }
}
