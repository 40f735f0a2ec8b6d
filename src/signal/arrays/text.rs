//! A recording as a text table (`.csv`, `.tsv`, read through the `csv` crate: quoted fields, a byte-order
//! mark, `#` comment lines): delimiter tab, semicolon or comma; an optional header row
//! of channel names; an optional first column of times (header `time`, `t`, `seconds`, `time_s` or
//! `time (s)`), which gives the sampling rate.

use crate::signal::edf::EdfError;
use std::path::Path;

/// A loaded table: channel names, channel-major values, the rate from a time column, the orientation note.
pub struct Table {
    pub names: Vec<String>,
    pub values: Vec<f64>,
    pub rate: Option<f64>,
    pub orientation_note: Option<String>,
}

const TIME_NAMES: [&str; 5] = ["time", "t", "seconds", "time_s", "time (s)"];

fn err(path: &Path, field: &str, problem: impl Into<String>) -> EdfError {
    EdfError::file(path, field, problem)
}

fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    match s.to_ascii_lowercase().as_str() {
        "nan" | "" => Some(f64::NAN),
        _ => s.parse().ok(),
    }
}

pub fn read(path: &Path) -> Result<Table, EdfError> {
    let bytes = std::fs::read(path).map_err(|e| err(path, "open", e.to_string()))?;
    let text = String::from_utf8_lossy(&bytes);
    let unmarked = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let first = unmarked.lines().find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some(first) = first else { return Err(err(path, "table", "no rows")) };
    let delim = if first.contains('\t') {
        b'\t'
    } else if first.contains(';') && !first.contains(',') {
        b';'
    } else {
        b','
    };
    // Through the csv crate: quoted names with the delimiter inside, a byte-order mark, comment lines.
    let records = crate::util::csv_text::records_with(&text, delim, true).map_err(|e| err(path, "table", e))?;
    let Some(head_record) = records.first() else { return Err(err(path, "table", "no rows")) };
    let head = head_record.fields.clone();
    let has_header = head.iter().any(|c| number(c).is_none());
    let body = if has_header { &records[1..] } else { &records[..] };
    let width = head.len();
    let mut rows: Vec<Vec<f64>> = Vec::with_capacity(body.len());
    for r in body {
        let c = &r.fields;
        if c.len() != width {
            return Err(err(
                path,
                &format!("line {}", r.line),
                format!("{} fields, the first row has {width}", c.len()),
            ));
        }
        let row = c
            .iter()
            .enumerate()
            .map(|(j, v)| {
                number(v).ok_or_else(|| {
                    err(path, &format!("line {}, column {}", r.line, j + 1), format!("{v:?} is not a number"))
                })
            })
            .collect::<Result<Vec<f64>, _>>()?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(err(path, "table", "a header row and no data"));
    }
    let mut names: Vec<String> = if has_header { head } else { Vec::new() };
    let mut rate = None;
    if has_header && TIME_NAMES.iter().any(|t| t.eq_ignore_ascii_case(&names[0])) && width > 1 {
        let (t0, t1, n) = (rows[0][0], rows[rows.len() - 1][0], rows.len());
        if n < 2 || t1.partial_cmp(&t0) != Some(std::cmp::Ordering::Greater) {
            return Err(err(path, "time column", "needs at least two increasing times to give a rate"));
        }
        // Times printed in decimal rarely give the rate exactly: within 1e-9 of a rate in µHz, that rate.
        let r = (n - 1) as f64 / (t1 - t0);
        let rounded = (r * 1e6).round() / 1e6;
        rate = Some(if ((rounded - r) / r).abs() < 1e-9 { rounded } else { r });
        names.remove(0);
        for r in &mut rows {
            r.remove(0);
        }
    }
    let (n_rows, n_cols) = (rows.len(), rows[0].len());
    // With a header, columns are channels; otherwise the shorter side is.
    let columns_are_channels = has_header || n_rows >= n_cols;
    let mut note = None;
    let values: Vec<f64> = if columns_are_channels {
        if !has_header && n_rows > n_cols {
            note = Some(format!(
                "{n_rows} rows × {n_cols} columns read as {n_rows} samples × {n_cols} channels (the shorter side is taken as the channels)"
            ));
        }
        (0..n_cols).flat_map(|c| rows.iter().map(move |r| r[c])).collect()
    } else {
        rows.into_iter().flatten().collect()
    };
    let n_channels = if columns_are_channels { n_cols } else { n_rows };
    if names.is_empty() {
        names = (1..=n_channels).map(|i| format!("Ch{i}")).collect();
    }
    Ok(Table { names, values, rate, orientation_note: note })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_quoted_channel_name_with_the_delimiter_is_one_channel() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("rec.csv");
        std::fs::write(&p, "\u{feff}# exported\ntime,\"EEG Fp1, ref A1\",Cz\n0,1,2\n0.5,3,\n1,5,6\n").unwrap();
        let t = super::read(&p).unwrap();
        assert_eq!(t.names, ["EEG Fp1, ref A1", "Cz"]);
        assert_eq!(t.rate, Some(2.0));
        assert_eq!(&t.values[..3], &[1.0, 3.0, 5.0]);
        assert!(t.values[4].is_nan(), "an empty cell is NaN");
        std::fs::write(&p, "a;b\n1;2\n3;x\n").unwrap();
        let e = super::read(&p).err().unwrap().to_string();
        assert!(e.contains("line 3, column 2"), "{e}");
    }
}
