//! Phenotype tables: a CSV (or TSV) with one row per subject, read through a column mapping (id, label, sex,
//! age, site) and the label values of the task. Presets for the two releases as they ship: ABIDE
//! Preprocessed's `Phenotypic_V1_0b_preprocessed1.csv` and ADHD-200's phenotypic table.

use crate::network::error::{Result, fail, format, invalid, io};
use std::collections::HashMap;
use std::path::Path;

/// Which columns hold what, and what their values mean.
#[derive(Clone, Debug)]
pub struct Spec {
    pub id: String,
    pub label: String,
    pub sex: Option<String>,
    pub age: Option<String>,
    pub site: Option<String>,
    /// The task these labels belong to (`asd`, `adhd`, `sex`, …).
    pub task: String,
    /// Raw value of the label column → the task's label.
    pub labels: Vec<(String, String)>,
    /// Raw value of the sex column → `male`/`female` (values not listed are kept as they are).
    pub sex_values: Vec<(String, String)>,
    /// Raw value of the site column → a site name (values not listed are kept as they are).
    pub site_names: Vec<(String, String)>,
}

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

impl Spec {
    /// ABIDE I Preprocessed (PCP): `FILE_ID`, `DX_GROUP` 1 = autism, 2 = control, `SEX` 1 = male, 2 = female.
    pub fn abide() -> Spec {
        Spec {
            id: "FILE_ID".into(),
            label: "DX_GROUP".into(),
            sex: Some("SEX".into()),
            age: Some("AGE_AT_SCAN".into()),
            site: Some("SITE_ID".into()),
            task: "asd".into(),
            labels: pairs(&[("1", "ASD"), ("2", "HC")]),
            sex_values: pairs(&[("1", "male"), ("2", "female")]),
            site_names: Vec::new(),
        }
    }

    /// ADHD-200: `ScanDir ID`, `DX` 0 = typically developing, 1/2/3 = ADHD combined/hyperactive/inattentive,
    /// `Gender` 0 = female, 1 = male, `Site` by the release's site codes.
    pub fn adhd200() -> Spec {
        Spec {
            id: "ScanDir ID".into(),
            label: "DX".into(),
            sex: Some("Gender".into()),
            age: Some("Age".into()),
            site: Some("Site".into()),
            task: "adhd".into(),
            labels: pairs(&[("0", "HC"), ("1", "ADHD"), ("2", "ADHD"), ("3", "ADHD")]),
            sex_values: pairs(&[("0", "female"), ("1", "male")]),
            site_names: pairs(&[
                ("1", "Peking"),
                ("2", "Brown"),
                ("3", "KKI"),
                ("4", "NeuroIMAGE"),
                ("5", "NYU"),
                ("6", "OHSU"),
                ("7", "Pittsburgh"),
                ("8", "WashU"),
            ]),
        }
    }

    /// A mapping for any table: the id and label columns, the label values as `VALUE=LABEL` pairs
    /// (`"1=ASD,2=HC"`), the task, and optional sex, age and site columns (blank: none).
    pub fn custom(id: &str, label: &str, values: &str, task: &str, sex: &str, age: &str, site: &str) -> Result<Spec> {
        let given = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_string());
        let (Some(id), Some(label), Some(task)) = (given(id), given(label), given(task)) else {
            invalid!("a column mapping needs the id column, the label column, the label values and the task")
        };
        let mut labels = Vec::new();
        for pair in values.split(',') {
            match pair.split_once('=') {
                Some((v, l)) if !v.trim().is_empty() && !l.trim().is_empty() => {
                    labels.push((v.trim().to_string(), l.trim().to_string()))
                }
                _ => invalid!("label values: '{pair}' is not VALUE=LABEL (e.g. 1=ASD,2=HC)"),
            }
        }
        Ok(Spec {
            id,
            label,
            sex: given(sex),
            age: given(age),
            site: given(site),
            task,
            labels,
            sex_values: Vec::new(),
            site_names: Vec::new(),
        })
    }

    /// The task's labels, in the order the mapping first names them.
    pub fn label_names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (_, l) in &self.labels {
            if !out.contains(l) {
                out.push(l.clone());
            }
        }
        out
    }
}

/// What the table says of one subject.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// 1-based line in the file.
    pub line: usize,
    pub label: Option<String>,
    pub sex: Option<String>,
    pub age: Option<f64>,
    pub site: Option<String>,
}

/// A phenotype table keyed by subject id ([`key`]).
#[derive(Debug)]
pub struct Table {
    pub path: String,
    pub rows: HashMap<String, Row>,
    /// Ids that occur on more than one line, with the lines: a subject matched to one is flagged.
    pub duplicates: HashMap<String, Vec<usize>>,
}

/// How ids are compared: numbers as numbers (ADHD-200's `0010001` file names against `10001` in the table),
/// anything else as trimmed text.
pub fn key(id: &str) -> String {
    let id = id.trim();
    match id.parse::<u64>() {
        Ok(n) => n.to_string(),
        Err(_) => id.to_string(),
    }
}

fn missing(v: &str) -> bool {
    matches!(v.trim(), "" | "N/A" | "NA" | "n/a" | "nan" | "NaN" | "-9999")
}

/// Reads the table at `path` with `spec`. A missing column or a label value the task does not know is an
/// error naming the file, the column and the line.
pub fn read(path: &Path, spec: &Spec) -> Result<Table> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(io(&name, "read"))?;
    let tab = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
    let records =
        crate::util::csv_text::records_with(&String::from_utf8_lossy(&bytes), if tab { b'\t' } else { b',' }, false)
            .map_err(|e| format(&name, e))?;
    // An empty table has an empty header: the first column asked for is then missing, naming the file.
    let header: &[String] = records.first().map_or(&[], |r| &r.fields);
    let body = records.get(1..).unwrap_or(&[]);
    let column = |c: &str| -> Result<usize> {
        match header.iter().position(|h| h == c) {
            Some(i) => Ok(i),
            None => fail!(name, "no column '{c}' (the header has: {})", header.join(", ")),
        }
    };
    let id_col = column(&spec.id)?;
    let label_col = column(&spec.label)?;
    let optional = |c: &Option<String>| c.as_deref().map(column).transpose();
    let (sex_col, age_col, site_col) = (optional(&spec.sex)?, optional(&spec.age)?, optional(&spec.site)?);
    let known = spec.labels.iter().map(|(raw, l)| format!("{raw} = {l}")).collect::<Vec<_>>().join(", ");
    let mut table = Table { path: name.clone(), rows: HashMap::new(), duplicates: HashMap::new() };
    for record in body {
        let line = record.line as usize;
        let cell = |c: usize| record.get(c);
        let id = cell(id_col);
        if missing(id) {
            continue;
        }
        let raw_label = cell(label_col);
        let label = if missing(raw_label) {
            None
        } else {
            match spec.labels.iter().find(|(raw, _)| raw == raw_label) {
                Some((_, l)) => Some(l.clone()),
                None => fail!(
                    name,
                    "line {line}: {} = '{raw_label}' is not a label of task {} (known: {})",
                    spec.label,
                    spec.task,
                    known
                ),
            }
        };
        let mapped = |c: Option<usize>, map: &[(String, String)]| {
            c.map(cell)
                .filter(|v| !missing(v))
                .map(|v| map.iter().find(|(raw, _)| raw == v).map_or_else(|| v.to_string(), |(_, m)| m.clone()))
        };
        let row = Row {
            line,
            label,
            sex: mapped(sex_col, &spec.sex_values),
            age: age_col.map(cell).and_then(|v| v.parse::<f64>().ok()),
            site: mapped(site_col, &spec.site_names),
        };
        let k = key(id);
        if let Some(first) = table.rows.get(&k) {
            table.duplicates.entry(k).or_insert_with(|| vec![first.line]).push(line);
        } else {
            table.rows.insert(k, row);
        }
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_note_with_a_comma_stays_one_cell_and_bad_lines_keep_their_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pheno.csv");
        let text = "\u{feff}ScanDir ID,Notes,Site,Gender,Age,DX\n1018959,\"motion, large ventricles\",3,0,12.36,0\n\n1019436,ok,5,1,N/A,7\n";
        std::fs::write(&p, text).unwrap();
        let e = read(&p, &Spec::adhd200()).unwrap_err().to_string();
        assert!(e.contains("line 4: DX = '7'"), "{e}");
        std::fs::write(&p, text.replace(",7\n", ",3\n")).unwrap();
        let t = read(&p, &Spec::adhd200()).unwrap();
        let r = &t.rows[&key("1018959")];
        assert_eq!((r.site.as_deref(), r.age, r.line), (Some("KKI"), Some(12.36), 2));
    }

    #[test]
    fn presets_map_values_and_name_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pheno.csv");
        std::fs::write(&p, "ScanDir ID,Site,Gender,Age,DX\n1018959,3,0,12.36,0\n1019436,5,1,N/A,3\n").unwrap();
        let t = read(&p, &Spec::adhd200()).unwrap();
        let r = &t.rows[&key("0001018959")];
        assert_eq!(
            (r.label.as_deref(), r.sex.as_deref(), r.site.as_deref(), r.age),
            (Some("HC"), Some("female"), Some("KKI"), Some(12.36))
        );
        assert_eq!(t.rows[&key("1019436")].label.as_deref(), Some("ADHD"));
        std::fs::write(&p, "ScanDir ID,Site,Gender,Age,DX\n1,3,0,12,0\n2,3,0,12,pending\n").unwrap();
        let e = read(&p, &Spec::adhd200()).unwrap_err().to_string();
        assert!(e.ends_with("pheno.csv: line 3: DX = 'pending' is not a label of task adhd (known: 0 = HC, 1 = ADHD, 2 = ADHD, 3 = ADHD)"), "{e}");
        std::fs::write(&p, "SUB_ID,DX_GROUP\n5,1\n").unwrap();
        let e = read(&p, &Spec::abide()).unwrap_err().to_string();
        assert!(e.ends_with("pheno.csv: no column 'FILE_ID' (the header has: SUB_ID, DX_GROUP)"), "{e}");
        // A mapping of one's own: the same table read by SUB_ID.
        let spec = Spec::custom("SUB_ID", "DX_GROUP", "1=ASD, 2=HC", "asd", "", "", "").unwrap();
        assert_eq!(read(&p, &spec).unwrap().rows[&key("5")].label.as_deref(), Some("ASD"));
        assert!(
            Spec::custom("SUB_ID", "DX_GROUP", "1:ASD", "asd", "", "", "")
                .unwrap_err()
                .to_string()
                .contains("VALUE=LABEL")
        );
        assert!(Spec::custom("", "DX_GROUP", "1=ASD", "asd", "", "", "").is_err());
    }
}
