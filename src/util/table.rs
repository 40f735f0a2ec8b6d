//! A table written the ways papers and spreadsheets take it: CSV (RFC 4180) and LaTeX (booktabs), and a LaTeX
//! document that sets several tables (the Bench report's and the BrainAgent evaluation's paper output).

use std::path::Path;

/// A table: column names and rows of text (numbers as Rust prints them, exactly).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> Table {
        Table { header: header.iter().map(|h| h.to_string()).collect(), rows: rows.into_iter().collect() }
    }

    /// CSV text (RFC 4180 quoting, through the `csv` crate: `util::csv_text`).
    pub fn csv(&self) -> String {
        crate::util::csv_text::write(std::iter::once(&self.header).chain(&self.rows))
    }

    /// A booktabs `tabular` (numbers to 3 decimals, right-aligned; text escaped, left-aligned).
    pub fn latex(&self) -> String {
        let numeric: Vec<bool> = (0..self.header.len())
            .map(|j| {
                let mut cells = self.rows.iter().filter_map(|r| r.get(j)).filter(|c| !c.is_empty()).peekable();
                cells.peek().is_some() && cells.all(|c| c.parse::<f64>().is_ok())
            })
            .collect();
        let spec: String = numeric.iter().map(|&n| if n { 'r' } else { 'l' }).collect();
        let mut out = format!("\\begin{{tabular}}{{{spec}}}\n\\toprule\n");
        out += &(self.header.iter().map(|h| tex(h)).collect::<Vec<_>>().join(" & ") + " \\\\\n\\midrule\n");
        for r in &self.rows {
            let cells: Vec<String> = r
                .iter()
                .zip(&numeric)
                .map(|(c, &n)| match c.parse::<f64>() {
                    Ok(v) if n && c.contains('.') => format!("{v:.3}"),
                    _ => tex(c),
                })
                .collect();
            out += &(cells.join(" & ") + " \\\\\n");
        }
        out + "\\bottomrule\n\\end{tabular}\n"
    }
}

/// LaTeX text: the ten special characters escaped.
fn tex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// One CSV text from a header and rows.
pub fn csv(header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    Table::new(header, rows).csv()
}

/// Writes each `(name.csv, table)` as `name.tex` (a booktabs tabular) and `tables.tex`, a document that sets
/// them all (with `note` in bold first); returns the files.
pub fn write_latex_document(
    tables: &[(&str, Table)],
    note: Option<&str>,
    dir: &Path,
) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let mut doc = String::from(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\begin{document}\n",
    );
    if let Some(n) = note {
        doc += &format!("\\noindent\\textbf{{{}}}\n\n", tex(n));
    }
    for (name, t) in tables {
        let stem = name.trim_end_matches(".csv");
        let p = dir.join(format!("{stem}.tex"));
        std::fs::write(&p, t.latex())?;
        written.push(p);
        doc += &format!(
            "\\begin{{table}}[htbp]\n\\centering\n\\caption{{{}}}\n\\resizebox{{\\linewidth}}{{!}}{{\\input{{{stem}.tex}}}}\n\\end{{table}}\n\\clearpage\n",
            tex(stem)
        );
    }
    doc += "\\end{document}\n";
    let p = dir.join("tables.tex");
    std::fs::write(&p, doc)?;
    written.push(p);
    Ok(written)
}
