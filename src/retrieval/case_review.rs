//! Expert review of case reports the refining pass flagged (`if_manual: true`), as knowledge items are
//! reviewed: approve (the flag is cleared and `review` records it), edit (the report's levels and conclusion
//! replaced by the reviewer's text, the report text and its embedding recomputed) or reject (the case leaves
//! the memory). Until reviewed, a flagged case is left out of CARD's ranking, as HARK leaves unreviewed
//! knowledge out.

use super::cases::{Case, CaseMemory};
use super::error::{Result, RetrievalError};
use super::text::MiniLm;
use serde_json::{Value, json};

/// The report fields a reviewer edits; the first three are the report text that is embedded.
pub const EDITABLE: [&str; 5] = ["region_level", "subgraph_level", "graph_level", "case_level", "conclusion"];

/// What a reviewer decided about one flagged case.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Approve,
    /// New text for some of [`EDITABLE`] (field, text); the case is approved with them.
    Edit(Vec<(String, String)>),
    Reject,
}

impl Case {
    /// Flagged by the refining pass and not reviewed yet.
    pub fn needs_review(&self) -> bool {
        self.report["if_manual"].as_bool() == Some(true) && self.report.get("review").is_none()
    }

    /// The text that is embedded: the region, subgraph and graph levels of the report.
    pub fn embedded_text(report: &Value) -> String {
        EDITABLE[..3].iter().filter_map(|k| report[*k].as_str()).collect::<Vec<_>>().join(" ")
    }
}

/// What a review changed.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Reviewed {
    pub approved: Vec<String>,
    pub edited: Vec<String>,
    pub rejected: Vec<String>,
}

impl CaseMemory {
    /// The cases waiting for review.
    pub fn flagged(&self) -> impl Iterator<Item = &Case> {
        self.cases.iter().filter(|c| c.needs_review())
    }

    /// Applies `(case id, verdict)` pairs; each id must name a flagged case. An edit of a memory that embeds
    /// report text re-embeds it with MiniLM (loaded only then; an error when it is not in the model cache).
    pub fn review(&mut self, verdicts: &[(String, Verdict)]) -> Result<Reviewed> {
        let mut done = Reviewed::default();
        for (id, verdict) in verdicts {
            let Some(i) = self.cases.iter().position(|c| &c.id == id) else {
                return Err(RetrievalError::from(format!("no case {id:?} in the memory")));
            };
            if !self.cases[i].needs_review() {
                return Err(RetrievalError::from(format!("case {id} is not waiting for review")));
            }
            match verdict {
                Verdict::Reject => {
                    self.cases.remove(i);
                    done.rejected.push(id.clone());
                }
                Verdict::Approve => {
                    self.cases[i].report["review"] = json!("approved");
                    done.approved.push(id.clone());
                }
                Verdict::Edit(fields) => {
                    if let Some((field, _)) = fields.iter().find(|(f, _)| !EDITABLE.contains(&f.as_str())) {
                        return Err(RetrievalError::from(format!(
                            "case {id}: {field:?} is not an editable field ({})",
                            EDITABLE.join(", ")
                        )));
                    }
                    let case = &mut self.cases[i];
                    for (field, value) in fields {
                        case.report[field.as_str()] = json!(value);
                    }
                    case.report_text = Case::embedded_text(&case.report);
                    if !case.report_embedding.is_empty() {
                        let model = MiniLm::shared().map_err(|e| {
                            RetrievalError::from(format!(
                                "case {id}: the memory embeds report text with {}, needed to re-embed the edit: {e}",
                                self.text_model
                            ))
                        })?;
                        case.report_embedding = model.embed(&[case.report_text.as_str()])?.remove(0);
                    }
                    case.report["review"] = json!("edited");
                    done.edited.push(id.clone());
                }
            }
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: &str, flagged: bool) -> Case {
        Case {
            id: id.into(),
            label: "a".into(),
            group: String::new(),
            graph: "g.npy".into(),
            report: json!({"region_level": "r", "subgraph_level": "s", "graph_level": "g", "case_level": "c",
                           "conclusion": "x", "if_manual": flagged}),
            report_text: "r s g".into(),
            written_by: "model:m".into(),
            graph_embedding: vec![1.0, 0.0],
            report_embedding: Vec::new(),
        }
    }

    #[test]
    fn verdicts_approve_edit_and_reject_flagged_cases_only() {
        let mut m = CaseMemory {
            task: "t".into(),
            encoder: "baseline".into(),
            text_model: "bm25".into(),
            atlas: None,
            cases: vec![case("a", true), case("b", true), case("c", true), case("d", false)],
        };
        assert_eq!(m.flagged().count(), 3);
        let edit = Verdict::Edit(vec![("graph_level".into(), "edited".into())]);
        let done =
            m.review(&[("a".into(), Verdict::Approve), ("b".into(), edit), ("c".into(), Verdict::Reject)]).unwrap();
        assert_eq!((done.approved, done.edited, done.rejected), (vec!["a".into()], vec!["b".into()], vec!["c".into()]));
        assert_eq!(m.flagged().count(), 0);
        assert_eq!(m.cases.len(), 3);
        assert_eq!(m.cases[1].report_text, "r s edited");
        assert_eq!(m.cases[1].report["review"], "edited");
        let e = m.review(&[("d".into(), Verdict::Approve)]).unwrap_err().to_string();
        assert!(e.contains("not waiting for review"), "{e}");
        let e = m.review(&[("zz".into(), Verdict::Reject)]).unwrap_err().to_string();
        assert!(e.contains("no case"), "{e}");
        m.cases.push(case("e", true));
        let bad = Verdict::Edit(vec![("label".into(), "b".into())]);
        assert!(m.review(&[("e".into(), bad)]).unwrap_err().to_string().contains("not an editable field"));
    }
}
