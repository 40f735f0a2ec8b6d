//! The parser audit (the BrainBench paper's E.9, 99.10 % agreement there): a second parser model re-parses N
//! stored reports and its values are compared with the stored parser output, field by field. A field is one
//! metric's target key (`full_text` excluded: it is the report itself). Two values agree when they are the
//! same after canonical reading: numbers to 1e-9 relative (a numeric string is its number), text trimmed and
//! case-folded, `set_match_check` lists as sets and other lists in order, null only with null. Agreement is
//! reported overall, per validation unit and per target model, with every disagreement listed.

use super::runner::roles::parse;
use crate::bench::canonical::number;
use crate::bench::case::Case;
use crate::bench::collection::Collection;
use crate::bench::rescore::CaseIndex;
use crate::bench::results::Instance;
use crate::bench::scoring::unit_of;
use crate::llm::ChatModel;
use crate::util::cancel::Cancel;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Agreement over a group of fields.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Agreement {
    /// Unit, model, or `Overall`.
    pub key: String,
    pub fields: usize,
    pub agree: usize,
    /// agree / fields (0 when there are no fields).
    pub share: f64,
}

/// A field the two parsers read differently.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Disagreement {
    pub model: String,
    pub instance_id: String,
    pub target_key: String,
    pub unit: String,
    pub stored: Value,
    pub audited: Value,
}

/// What `bench audit-parser` prints.
#[derive(Debug, Clone, Serialize)]
pub struct ParserAudit {
    /// The auditing parser model.
    pub parser: String,
    /// Instances re-parsed.
    pub instances: usize,
    pub overall: Agreement,
    pub by_unit: Vec<Agreement>,
    pub by_model: Vec<Agreement>,
    pub disagreements: Vec<Disagreement>,
    /// Instances that could not be audited (no case, the audit parser failed), with the reason.
    pub skipped: Vec<String>,
}

/// Whether two parsed values say the same (see the module comment).
pub fn same_value(a: &Value, b: &Value, as_set: bool) -> bool {
    let text = |v: &Value| match v {
        Value::String(s) => s.trim().to_lowercase(),
        other => other.to_string().to_lowercase(),
    };
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Array(x), Value::Array(y)) => {
            let (mut x, mut y): (Vec<String>, Vec<String>) =
                (x.iter().map(text).collect(), y.iter().map(text).collect());
            if as_set {
                x.sort();
                x.dedup();
                y.sort();
                y.dedup();
            }
            x == y
        }
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
            _ => text(a) == text(b),
        },
    }
}

/// Up to `n` answered, non-infrastructure instances of `c` with their target model: an even spread over the
/// collection, in file and instance order (the same for the same inputs). Only these are copied.
pub fn pick(c: &Collection, n: usize) -> Vec<(String, Instance)> {
    let candidates: Vec<(&str, &Instance)> = c
        .runs
        .iter()
        .flat_map(|r| r.result.instances.iter().map(move |i| (r.model.as_str(), i)))
        .filter(|(_, i)| !i.is_infrastructure_failure() && !i.report().trim().is_empty() && i.parser_output.is_object())
        .collect();
    let step = (candidates.len() as f64 / n.max(1) as f64).max(1.0);
    (0..n.min(candidates.len()))
        .map(|k| candidates[((k as f64 * step) as usize).min(candidates.len() - 1)])
        .map(|(m, i)| (m.to_string(), i.clone()))
        .collect()
}

/// Re-parses the [`pick`] of `n` instances of `c` with `model` and compares field by field.
pub fn audit(c: &Collection, cases: &[Case], model: &dyn ChatModel, n: usize, cancel: &Cancel) -> ParserAudit {
    audit_picked(&pick(c, n), cases, model, cancel)
}

/// Re-parses `picked` (target model, instance) with `model` and compares field by field.
pub fn audit_picked(
    picked: &[(String, Instance)],
    cases: &[Case],
    model: &dyn ChatModel,
    cancel: &Cancel,
) -> ParserAudit {
    let index = CaseIndex::new(cases);
    let mut groups: BTreeMap<(u8, String), (usize, usize)> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut skipped = Vec::new();
    let mut instances = 0;
    for (target, inst) in picked {
        if cancel.is_cancelled() {
            skipped.push("cancelled".into());
            break;
        }
        let Some(case) = index.find(inst) else {
            skipped.push(format!("{}: no case file matches it", inst.instance_id));
            continue;
        };
        let audited = match parse(model, case, inst.report(), cancel, 512) {
            Ok(p) if p.error.is_none() => p.parsed,
            Ok(p) => {
                skipped.push(format!("{}: {}", inst.instance_id, p.error.unwrap_or_default()));
                continue;
            }
            Err(e) => {
                skipped.push(format!("{}: the audit parser failed: {e}", inst.instance_id));
                continue;
            }
        };
        instances += 1;
        for m in &case.metrics {
            let Some(key) = m.target_key.as_deref().filter(|k| *k != "full_text") else { continue };
            let (stored, new) = (&inst.parser_output[key], &audited[key]);
            let ok = same_value(stored, new, m.kind == "set_match_check");
            let unit = unit_of(&m.kind).to_string();
            for g in [(0u8, "Overall".to_string()), (1, unit.clone()), (2, target.to_string())] {
                let e = groups.entry(g).or_default();
                e.0 += 1;
                e.1 += usize::from(ok);
            }
            if !ok {
                disagreements.push(Disagreement {
                    model: target.to_string(),
                    instance_id: inst.instance_id.clone(),
                    target_key: key.to_string(),
                    unit,
                    stored: stored.clone(),
                    audited: new.clone(),
                });
            }
        }
    }
    let row = |key: String, (fields, agree): (usize, usize)| Agreement {
        key,
        fields,
        agree,
        share: if fields > 0 { agree as f64 / fields as f64 } else { 0.0 },
    };
    let mut overall = row("Overall".into(), (0, 0));
    let (mut by_unit, mut by_model) = (Vec::new(), Vec::new());
    for ((kind, key), v) in groups {
        match kind {
            0 => overall = row(key, v),
            1 => by_unit.push(row(key, v)),
            _ => by_model.push(row(key, v)),
        }
    }
    ParserAudit { parser: model.name(), instances, overall, by_unit, by_model, disagreements, skipped }
}

#[cfg(test)]
mod tests {
    use super::same_value;
    use serde_json::json;

    #[test]
    fn values_agree_after_canonical_reading() {
        assert!(same_value(&json!(10.0), &json!("10"), false));
        assert!(!same_value(&json!(10.0), &json!(10.5), false));
        assert!(same_value(&json!(" Alpha "), &json!("alpha"), false));
        assert!(same_value(&json!(["O1", "o2"]), &json!(["O2", "O1", "o1"]), true));
        assert!(!same_value(&json!(["O1", "O2"]), &json!(["O2", "O1"]), false));
        assert!(!same_value(&json!(null), &json!(0), false));
        assert!(same_value(&json!(null), &json!(null), false));
    }
}
