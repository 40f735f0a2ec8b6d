//! Hypnograms: one stage per 30-s epoch, from EDF+ annotations (AASM `W/N1/N2/N3/R`, `Sleep stage W/1/2/3/4/R/?`)
//! or from a label file (one stage per line, or a CSV column), with YASA's integer codes or the SRI
//! sleep-tracker codes.

use crate::signal::edf::Annotation;
use crate::signal::error::{SignalError, invalid};
use serde::Serialize;
use std::path::Path;

/// A sleep stage, ordered as YASA's integer codes (−2 unscored, −1 artefact, 0 W, 1 N1, 2 N2, 3 N3, 4 REM).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Stage {
    Unscored,
    Artefact,
    Wake,
    N1,
    N2,
    N3,
    Rem,
}

impl Stage {
    pub const ALL: [Stage; 7] =
        [Stage::Unscored, Stage::Artefact, Stage::Wake, Stage::N1, Stage::N2, Stage::N3, Stage::Rem];

    /// YASA's integer code.
    pub fn code(self) -> i32 {
        match self {
            Stage::Unscored => -2,
            Stage::Artefact => -1,
            Stage::Wake => 0,
            Stage::N1 => 1,
            Stage::N2 => 2,
            Stage::N3 => 3,
            Stage::Rem => 4,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Stage::Unscored => "UNS",
            Stage::Artefact => "ART",
            Stage::Wake => "W",
            Stage::N1 => "N1",
            Stage::N2 => "N2",
            Stage::N3 => "N3",
            Stage::Rem => "R",
        }
    }

    pub fn is_sleep(self) -> bool {
        matches!(self, Stage::N1 | Stage::N2 | Stage::N3 | Stage::Rem)
    }

    /// A stage name as written in EDF+ annotations and label files; `None` for other annotations.
    pub fn from_label(text: &str) -> Option<Stage> {
        let t = text.trim().to_lowercase();
        let t = t.strip_prefix("sleep stage").map(str::trim).unwrap_or(&t);
        Some(match t {
            "w" | "wake" | "0" => Stage::Wake,
            "n1" | "1" | "s1" => Stage::N1,
            "n2" | "2" | "s2" => Stage::N2,
            "n3" | "n4" | "3" | "4" | "s3" | "s4" => Stage::N3,
            "r" | "rem" | "5" => Stage::Rem,
            "?" | "uns" | "unscored" | "-2" => Stage::Unscored,
            "art" | "artefact" | "artifact" | "movement time" | "mt" | "movement" | "-1" => Stage::Artefact,
            _ => return None,
        })
    }
}

/// How integers in a label file are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codes {
    /// −2 UNS, −1 ART, 0 W, 1 N1, 2 N2, 3 N3, 4 R.
    Yasa,
    /// The SRI sleep-tracker data: 0 Wake, 1 Light (read as N2), 2 Deep (N3), 3 REM.
    Sri,
}

impl Codes {
    pub fn parse(s: &str) -> Result<Codes, SignalError> {
        match s.trim().to_lowercase().as_str() {
            "yasa" | "aasm" => Ok(Codes::Yasa),
            "sri" => Ok(Codes::Sri),
            o => Err(invalid!("unknown stage codes {o:?} (yasa, sri)")),
        }
    }

    fn stage(self, code: i64) -> Option<Stage> {
        match (self, code) {
            (Codes::Yasa, -2) => Some(Stage::Unscored),
            (Codes::Yasa, -1) => Some(Stage::Artefact),
            (Codes::Yasa, 0) | (Codes::Sri, 0) => Some(Stage::Wake),
            (Codes::Yasa, 1) => Some(Stage::N1),
            (Codes::Yasa, 2) | (Codes::Sri, 1) => Some(Stage::N2),
            (Codes::Yasa, 3) | (Codes::Sri, 2) => Some(Stage::N3),
            (Codes::Yasa, 4) | (Codes::Sri, 3) => Some(Stage::Rem),
            _ => None,
        }
    }
}

/// The stage names a scoring uses. AASM's W/N1/N2/N3/R, or a four-stage scoring's Wake/Light/Deep/REM (the SRI
/// tracker codes, as consumer devices score): its Light epochs are held as `Stage::N2` and its Deep as
/// `Stage::N3` so that YASA's definitions apply, and what the app shows names them Light and Deep again
/// (`SleepStats::to_json`) — calling a tracker's Light "N2" would state a distinction it never scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    #[default]
    Aasm,
    FourStage,
}

/// Stages of consecutive epochs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hypnogram {
    pub epoch_s: f64,
    pub stages: Vec<Stage>,
    #[serde(skip)]
    pub scale: Scale,
}

/// One token of a label file: an integer code under `codes`, or a stage name.
fn stage_of(token: &str, codes: Codes) -> Option<Stage> {
    match token.trim().parse::<i64>() {
        Ok(i) => codes.stage(i),
        Err(_) => Stage::from_label(token),
    }
}

/// Splits a CSV/TSV line (no quoting needed for these files).
fn fields(line: &str) -> Vec<&str> {
    line.split([',', '\t', ';']).map(str::trim).collect()
}

impl Hypnogram {
    /// From EDF+ stage annotations: each covers ⌊duration / epoch⌋ epochs (at least one) from ⌊onset / epoch⌋;
    /// epochs no stage annotation covers are unscored.
    pub fn from_annotations(annotations: &[Annotation], epoch_s: f64) -> Option<Hypnogram> {
        let staged: Vec<(usize, usize, Stage)> = annotations
            .iter()
            .filter_map(|a| {
                let s = Stage::from_label(&a.text)?;
                let first = (a.onset_s / epoch_s + 1e-6).floor().max(0.0) as usize;
                let n = a.duration_s.map_or(1, |d| ((d / epoch_s) + 1e-6).floor().max(1.0) as usize);
                Some((first, n, s))
            })
            .collect();
        let len = staged.iter().map(|(f, n, _)| f + n).max()?;
        let mut stages = vec![Stage::Unscored; len];
        for (first, n, s) in staged {
            stages[first..first + n].fill(s);
        }
        Some(Hypnogram { epoch_s, stages, scale: Scale::Aasm })
    }

    /// From a label file: one stage per line, or with a header row, the column `column` (default: the first
    /// column whose values are stages) of the rows whose `subject` column equals `subject` when given.
    pub fn from_text(
        text: &str,
        column: Option<&str>,
        subject: Option<&str>,
        codes: Codes,
    ) -> Result<Hypnogram, SignalError> {
        let lines: Vec<&str> =
            text.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')).collect();
        let first = lines.first().ok_or("the file holds no stages")?;
        let header: Vec<&str> = fields(first);
        let has_header = header.iter().any(|h| stage_of(h, codes).is_none() && h.parse::<f64>().is_err());
        let (rows, col, subj_col) = if has_header {
            let col = match column {
                Some(c) => header
                    .iter()
                    .position(|h| h.eq_ignore_ascii_case(c))
                    .ok_or_else(|| invalid!("no column {c:?}; columns are {}", header.join(", ")))?,
                None => {
                    let second = lines.get(1).map(|l| fields(l)).unwrap_or_default();
                    (0..header.len())
                        .find(|&i| {
                            let n = header[i].to_lowercase();
                            n != "epoch"
                                && n != "subject"
                                && second.get(i).is_some_and(|v| stage_of(v, codes).is_some())
                        })
                        .ok_or("no column holds stages (name it with --column)")?
                }
            };
            let subj = header.iter().position(|h| h.eq_ignore_ascii_case("subject"));
            (&lines[1..], col, subj)
        } else {
            (
                &lines[..],
                column.map_or(Ok(0), |c| {
                    c.parse::<usize>()
                        .map_err(|_| format!("the file has no header; --column must be an index, not {c:?}"))
                })?,
                None,
            )
        };
        if subject.is_some() && subj_col.is_none() {
            return Err("the file has no 'subject' column".into());
        }
        let mut stages = Vec::new();
        for (i, line) in rows.iter().enumerate() {
            let f = fields(line);
            if let (Some(want), Some(sc)) = (subject, subj_col) {
                if f.get(sc).copied() != Some(want) {
                    continue;
                }
            }
            let token =
                f.get(col).ok_or_else(|| invalid!("line {}: no column {col}", i + 1 + usize::from(has_header)))?;
            stages.push(
                stage_of(token, codes).ok_or_else(|| {
                    format!("line {}: {token:?} is not a sleep stage", i + 1 + usize::from(has_header))
                })?,
            );
        }
        if stages.is_empty() {
            return Err(SignalError::Invalid(match subject {
                Some(s) => format!("no epochs for subject {s:?}"),
                None => "the file holds no stages".into(),
            }));
        }
        let scale = if codes == Codes::Sri { Scale::FourStage } else { Scale::Aasm };
        Ok(Hypnogram { epoch_s: 30.0, stages, scale })
    }

    pub fn load(
        path: &Path,
        column: Option<&str>,
        subject: Option<&str>,
        codes: Codes,
    ) -> Result<Hypnogram, SignalError> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        if matches!(ext.as_str(), "edf" | "bdf") {
            let rec = crate::signal::Recording::open(path).map_err(|e| e.to_string())?;
            let ann = rec.annotations().map_err(|e| e.to_string())?;
            return Hypnogram::from_annotations(ann, 30.0)
                .ok_or_else(|| invalid!("{}: no sleep-stage annotations", path.display()));
        }
        let text = std::fs::read_to_string(path).map_err(|e| invalid!("{}: {e}", path.display()))?;
        Hypnogram::from_text(&text, column, subject, codes).map_err(|e| invalid!("{}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_annotations() {
        assert_eq!(Stage::from_label("Sleep stage 4"), Some(Stage::N3));
        assert_eq!(Stage::from_label("Sleep stage R"), Some(Stage::Rem));
        assert_eq!(Stage::from_label("Sleep stage ?"), Some(Stage::Unscored));
        assert_eq!(Stage::from_label("N2"), Some(Stage::N2));
        assert_eq!(Stage::from_label("Lights off"), None);
        let ann = vec![
            Annotation { onset_s: 0.0, duration_s: Some(90.0), text: "Sleep stage W".into() },
            Annotation { onset_s: 10.0, duration_s: None, text: "Lights off".into() },
            Annotation { onset_s: 120.0, duration_s: Some(60.0), text: "N2".into() },
        ];
        let h = Hypnogram::from_annotations(&ann, 30.0).unwrap();
        assert_eq!(h.stages, [Stage::Wake, Stage::Wake, Stage::Wake, Stage::Unscored, Stage::N2, Stage::N2]);
    }

    #[test]
    fn text_files() {
        let h = Hypnogram::from_text("W\nN1\n2\n3\nR\n", None, None, Codes::Yasa).unwrap();
        assert_eq!(h.stages, [Stage::Wake, Stage::N1, Stage::N2, Stage::N3, Stage::Rem]);
        let csv = "subject,epoch,reference,device\nA,1,0,0\nA,2,1,2\nB,1,3,3\n";
        let h = Hypnogram::from_text(csv, Some("device"), Some("A"), Codes::Sri).unwrap();
        assert_eq!(h.stages, [Stage::Wake, Stage::N3]);
        assert_eq!(h.scale, Scale::FourStage);
        let e = Hypnogram::from_text("W\nX\n", None, None, Codes::Yasa).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("\"X\""), "{e}");
    }
}
