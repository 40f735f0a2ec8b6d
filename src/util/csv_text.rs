//! CSV text read and written through the `csv` crate, the one home for every table BrainLens reads or writes
//! as CSV (labels, atlases, electrode positions, matrices, phenotype tables, result tables): fields quoted
//! as RFC 4180 quotes them (a comma, a quote or a line break inside quotes), a UTF-8 byte-order mark at the
//! start (as spreadsheets write it), blank lines skipped, every field trimmed.

/// One record: the line it starts on (1-based) and its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub line: u64,
    pub fields: Vec<String>,
}

impl Record {
    /// The field at `i`, or "" past the end (a short row).
    pub fn get(&self, i: usize) -> &str {
        self.fields.get(i).map_or("", String::as_str)
    }
}

/// The records of a CSV text (a header row, if any, is the first record: the caller knows its tables).
/// Rows may differ in length.
pub fn records(text: &str) -> Result<Vec<Record>, String> {
    records_with(text, b',', false)
}

/// As [`records`], with another delimiter (tab, semicolon) and, with `comments`, lines starting with `#`
/// skipped (they keep their place in the line numbers).
pub fn records_with(text: &str, delimiter: u8, comments: bool) -> Result<Vec<Record>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .delimiter(delimiter)
        .comment(comments.then_some(b'#'))
        .from_reader(text.as_bytes());
    let mut out = Vec::new();
    // The line a record starts on, counted here: the crate's position of a record after blank lines is the
    // first blank line's. Counted on from the last record, so a long table is read in one pass.
    let bytes = text.as_bytes();
    let (mut counted_to, mut line) = (0usize, 1u64);
    for row in reader.records() {
        let row = row.map_err(|e| match e.position() {
            Some(p) => format!("line {}: {}", p.line(), csv_problem(&e)),
            None => csv_problem(&e),
        })?;
        if row.iter().all(str::is_empty) {
            continue;
        }
        let mut start = row.position().map_or(counted_to, |p| p.byte() as usize).clamp(counted_to, bytes.len());
        while start < bytes.len() && matches!(bytes[start], b'\n' | b'\r') {
            start += 1;
        }
        line += bytes[counted_to..start].iter().filter(|&&b| b == b'\n').count() as u64;
        counted_to = start;
        out.push(Record { line, fields: row.iter().map(str::to_string).collect() });
    }
    Ok(out)
}

fn csv_problem(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".into(),
        _ => e.to_string(),
    }
}

/// The fields of the first record of a CSV text (a header row), or none.
pub fn first_record(text: &str) -> Vec<String> {
    records(text).ok().and_then(|r| r.into_iter().next()).map(|r| r.fields).unwrap_or_default()
}

/// CSV text of `rows` (the header first, if any): a field is quoted when it holds a comma, a quote or a line
/// break, with quotes doubled (RFC 4180); lines end with `\n`.
pub fn write<R, F>(rows: R) -> String
where
    R: IntoIterator<Item = F>,
    F: IntoIterator,
    F::Item: AsRef<[u8]>,
{
    let mut w =
        csv::WriterBuilder::new().flexible(true).terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    for r in rows {
        // Writing to memory cannot fail.
        w.write_record(r).expect("CSV into memory");
    }
    String::from_utf8(w.into_inner().expect("CSV into memory")).expect("UTF-8 fields give UTF-8 CSV")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_a_byte_order_mark_and_blank_lines_are_read_as_spreadsheets_write_them() {
        let text = "\u{feff}file,label,group\n\n\"sub 1, run 2.npy\",ASD,\"NYU, site \"\"A\"\"\"\n  x.npy , HC \n\"two\nlines\",HC,g\n";
        let r = records(text).unwrap();
        assert_eq!(r[0].fields, ["file", "label", "group"]);
        assert_eq!(r[1].fields, ["sub 1, run 2.npy", "ASD", "NYU, site \"A\""]);
        assert_eq!((r[1].line, r[2].line), (3, 4));
        assert_eq!(r[2].fields, ["x.npy", "HC"]);
        assert_eq!(r[2].get(2), "");
        assert_eq!(r[3].fields[0], "two\nlines");
        assert_eq!(first_record(text), ["file", "label", "group"]);
        // A quote left open runs to the end of the text (the csv crate reads it so; no error).
        assert_eq!(records("a,b\n\"open,c\n").unwrap()[1].fields, ["open,c"]);
    }

    #[test]
    fn written_csv_reads_back_field_for_field() {
        let rows = vec![vec!["name", "value"], vec!["Frontal_Sup_L, lateral", "1.5"], vec!["say \"hi\"", "x\ny"]];
        let text = write(rows.clone());
        assert_eq!(text.lines().next(), Some("name,value"));
        assert!(text.contains("\"Frontal_Sup_L, lateral\",1.5\n") && text.contains("\"say \"\"hi\"\"\""));
        let back: Vec<Vec<String>> = records(&text).unwrap().into_iter().map(|r| r.fields).collect();
        assert_eq!(back, rows.iter().map(|r| r.iter().map(|s| s.to_string()).collect::<Vec<_>>()).collect::<Vec<_>>());
    }
}
