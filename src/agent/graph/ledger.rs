//! The evidence ledger of a brainagent-hybrid analysis (`Trace::hybrid`): each evidence item, the label it
//! supports, whether the cohort model weighed it and whether the rationale cited it; the decision rule that
//! takes or refuses an override; the evidence as the prompt shows it. Data and rules only: the step that fills
//! it is `hybrid.rs`.

use serde::{Deserialize, Serialize};

/// One evidence item as the ledger shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerItem {
    pub id: String,
    /// `cohort model`, `edge`, `similar case` or `graph metric`.
    pub kind: String,
    pub text: String,
    /// The label the item supports (graph metrics support none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports: Option<String>,
    /// Part of what the cohort model weighed (its P and edges): such an item cannot justify an override.
    pub weighed: bool,
    /// Cited by the analysis' rationale.
    pub cited: bool,
}

/// What the decision rule did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// The analysis concluded the evidence's label.
    Agreed,
    /// The analysis proposed the other label with citations the rule accepts: its label is the decision.
    Overridden,
    /// The analysis proposed the other label without such citations: the evidence's label stands.
    Refused,
    /// The analysis proposed the other label, and overrides are off: the evidence's label stands.
    OverridesOff,
}

/// The hybrid's record in a trace: the evidence decision, the analysis' proposal, the rule and the ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hybrid {
    pub positive: String,
    /// The cohort model's calibrated P(positive) and the label it favours.
    pub probability: f64,
    pub evidence_label: String,
    /// The label the analysis concluded.
    pub proposed: String,
    pub rule: Rule,
    /// Why the rule did what it did (the ids it accepted, or what was missing).
    pub reason: String,
    pub ledger: Vec<LedgerItem>,
}

/// The prompt's evidence lines: each item with its id and the label it supports.
pub fn evidence_text(items: &[LedgerItem]) -> String {
    items
        .iter()
        .map(|i| match &i.supports {
            Some(l) => format!("[{}] {} → supports {l}", i.id, i.text),
            None => format!("[{}] {}", i.id, i.text),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The decision rule: the evidence's label, unless the analysis proposes the other one, overrides are on and it
/// cites an item the cohort model did not weigh that supports the proposed label.
pub fn decide(
    evidence_label: &str,
    proposed: &str,
    cited: &[String],
    items: &[LedgerItem],
    overrides: bool,
) -> (Rule, String) {
    if proposed == evidence_label {
        return (Rule::Agreed, format!("the analysis concluded the evidence's label {evidence_label}"));
    }
    if !overrides {
        return (
            Rule::OverridesOff,
            format!(
                "the analysis proposed {proposed}; overrides are off, so the evidence's label {evidence_label} stands"
            ),
        );
    }
    let backing: Vec<&str> = items
        .iter()
        .filter(|i| !i.weighed && i.supports.as_deref() == Some(proposed) && cited.contains(&i.id))
        .map(|i| i.id.as_str())
        .collect();
    if backing.is_empty() {
        (
            Rule::Refused,
            format!(
                "the analysis proposed {proposed} without citing evidence for it that the cohort model did not weigh; \
                 the evidence's label {evidence_label} stands"
            ),
        )
    } else {
        (
            Rule::Overridden,
            format!("the analysis overrode {evidence_label} with {proposed}, citing {}", backing.join(", ")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, supports: Option<&str>, weighed: bool) -> LedgerItem {
        LedgerItem {
            id: id.into(),
            kind: String::new(),
            text: String::new(),
            supports: supports.map(String::from),
            weighed,
            cited: false,
        }
    }

    #[test]
    fn an_override_needs_unweighed_evidence_for_the_other_label() {
        let items = vec![
            item("P:cohort", Some("HC"), true),
            item("E:1", Some("ASD"), true),
            item("C:a", Some("ASD"), false),
            item("C:b", Some("HC"), false),
            item("G:density", None, false),
        ];
        let cite = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(decide("HC", "HC", &cite(&["P:cohort"]), &items, true).0, Rule::Agreed);
        assert_eq!(decide("HC", "ASD", &cite(&["C:a"]), &items, false).0, Rule::OverridesOff);
        // The cohort model's own edge was weighed; a graph metric supports no label; a case of HC is the wrong way.
        assert_eq!(decide("HC", "ASD", &cite(&["E:1", "G:density", "C:b"]), &items, true).0, Rule::Refused);
        let (rule, reason) = decide("HC", "ASD", &cite(&["E:1", "C:a"]), &items, true);
        assert_eq!(rule, Rule::Overridden);
        assert!(reason.contains("citing C:a"), "{reason}");
    }
}
