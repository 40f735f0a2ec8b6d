//! `brainagent-hybrid`: a decision as good as its evidence. The evidence is gathered without the model — the
//! cohort model's calibrated P(label) (`P:cohort`), the ten edges that moved its score (`E:1` … `E:10`), CARD's
//! similar cases (`C:…`) and the graph's global metrics (`G:…`) — and decides: the label the calibrated P
//! favours against the training split's rate of the positive label (`CohortModel::favoured`). The model then explains that decision, citing the evidence by id and saying where it disagrees.
//! It may propose the other label, and the proposal is taken only when overrides are on and it cites evidence
//! the cohort model did not already weigh that supports the other label (a similar case of that label);
//! otherwise it is refused by rule and recorded, as the Bench strikes unsupported claims. The ledger keeps every
//! item, the label it supports, whether the rationale cited it, and what the rule did.

use super::call::{Caller, StepError};
use super::context::{Evidence, GraphContext};
use super::ledger::{Hybrid, LedgerItem, Rule};
use super::ledger::{decide, evidence_text};
use super::run::Agent;
use super::trace::{Decision, OutcomeClass, Round, Trace};
use crate::agent::graph::cohort_model::Prediction;
use serde_json::json;

/// The ledger of `p` (the cohort model's prediction), the cases `hits` (case, label, similarity) and the
/// graph's global metrics.
pub fn ledger(p: &Prediction, negative: &str, cases: &[(String, String, f32)], ctx: &GraphContext) -> Vec<LedgerItem> {
    let mut out = vec![LedgerItem {
        id: "P:cohort".into(),
        kind: "cohort model".into(),
        text: format!(
            "the cohort model (a validated logistic regression on this cohort's training split, calibrated): P({}) = \
             {:.3} against the training split's rate {:.3}",
            p.positive, p.probability, p.prior
        ),
        supports: Some(p.label.clone()),
        weighed: true,
        cited: false,
    }];
    for (i, e) in p.edges.iter().enumerate() {
        let nets = e.networks.as_ref().map(|n| format!(" ({} – {})", n[0], n[1])).unwrap_or_default();
        out.push(LedgerItem {
            id: format!("E:{}", i + 1),
            kind: "edge".into(),
            text: format!(
                "edge {} – {}{nets}: Fisher z {:.3} here; training mean {} {:.3}, {negative} {:.3}; moves the score {:+.3}",
                e.regions[0], e.regions[1], e.value, p.positive, e.mean_positive, e.mean_negative, e.contribution
            ),
            supports: Some(e.supports.clone()),
            weighed: true,
            cited: false,
        });
    }
    for (case, label, sim) in cases {
        out.push(LedgerItem {
            id: format!("C:{case}"),
            kind: "similar case".into(),
            text: format!("similar case {case} labelled {label} (similarity {sim:.3})"),
            supports: Some(label.clone()),
            weighed: false,
            cited: false,
        });
    }
    for (k, names, v) in ctx.global_values() {
        out.push(LedgerItem {
            id: format!("G:{k}"),
            kind: "graph metric".into(),
            text: format!("{} = {v:.4}", names[0]),
            supports: None,
            weighed: false,
            cited: false,
        });
    }
    out
}

impl Agent {
    /// The hybrid's steps (see the module): evidence, the evidence decision, the analysis, the rule.
    pub(super) fn hybrid(
        &self,
        caller: &Caller,
        ctx: &GraphContext,
        trace: &mut Trace,
    ) -> Result<(), (String, StepError)> {
        let fail = |step: &str, m: String| {
            (step.to_string(), StepError { class: OutcomeClass::ConfigurationError, message: m })
        };
        let model = self.resources.cohort_model.as_ref().ok_or_else(|| {
            fail("evidence", "brainagent-hybrid needs a cohort model (brainlens cohort train; --cohort-model)".into())
        })?;
        let (model_file, m) = (&model.0, &model.1);
        m.check_atlas(&ctx.name, ctx.n(), ctx.atlas.as_ref(), model_file)
            .map_err(|e| fail("evidence", e.to_string()))?;
        let p =
            m.predict(&ctx.name, &ctx.connectome, ctx.atlas.as_ref()).map_err(|e| fail("evidence", e.to_string()))?;
        let mut cases = Vec::new();
        let mut hits = serde_json::Value::Null;
        if let Some(mem) = self.resources.memory.as_ref().filter(|_| self.settings.card) {
            let query = super::tools::Memory::template_query(ctx);
            let own = mem.own_group(ctx);
            let h = mem.query(ctx, &query, own.as_deref()).map_err(|e| fail("evidence", format!("{e:#}")))?;
            cases = h.iter().filter(|h| h.chosen).map(|h| (h.case.clone(), h.label.clone(), h.score)).collect();
            hits = json!({"query": query, "excluded_group": own, "hits": h});
        }
        let mut items = ledger(&p, &m.negative, &cases, ctx);
        // `Prediction::label` is `CohortModel::favoured` of its P.
        let evidence_label = p.label.clone();
        for i in &items {
            if !trace.evidence.iter().any(|e| e.id == i.id) {
                trace.evidence.push(Evidence { id: i.id.clone(), text: i.text.clone() });
            }
        }
        let table = evidence_text(&items);
        trace.rounds.push(Round {
            index: 1,
            menu: vec!["cohort_evidence".into()],
            think: "The evidence is gathered without the model: the cohort model, its edges, similar cases, the graph's metrics.".into(),
            tool: "cohort_evidence".into(),
            arguments: json!({}),
            checked: json!({}),
            observation: table.clone(),
            data: json!({"prediction": p, "cases": hits, "model": model_file.display().to_string()}),
            ..Default::default()
        });
        let ids_of = |kinds: &[&str]| -> Vec<String> {
            items.iter().filter(|i| kinds.contains(&i.kind.as_str())).map(|i| i.id.clone()).collect()
        };
        let all: Vec<String> = items.iter().map(|i| i.id.clone()).collect();
        let (second, about) = match ids_of(&["similar case"]) {
            c if !c.is_empty() => (c, "the similar cases (C:)"),
            _ => (ids_of(&["graph metric"]), "the graph's metrics (G:)"),
        };
        let prompt =
            super::prompts::hybrid_analysis(&table, &evidence_label, (p.probability, p.prior), &m.positive, about);
        let schema = super::prompts::hybrid_schema(&self.task, &ids_of(&["cohort model", "edge"]), &second, &all);
        let v = caller
            .ask(trace, "analysis", prompt, "analysis", schema, &|v| self.check_decision(v))
            .map_err(|e| ("analysis".to_string(), e))?;
        let analysis = super::run::decision_of(&super::prompts::hybrid_claims(v), &trace.evidence);
        for i in &mut items {
            i.cited = analysis.evidence.contains(&i.id);
        }
        let (rule, reason) =
            decide(&evidence_label, &analysis.label, &analysis.evidence, &items, self.settings.overrides);
        let label = if rule == Rule::Overridden { analysis.label.clone() } else { evidence_label.clone() };
        let p_label = if label == m.positive { p.probability } else { 1.0 - p.probability };
        let decision = Decision {
            label,
            confidence: p_label,
            label_probabilities: Some(vec![
                (m.negative.clone(), 1.0 - p.probability),
                (m.positive.clone(), p.probability),
            ]),
            ..analysis.clone()
        };
        trace.analysis = Some(analysis.clone());
        trace.decision = Some(decision);
        trace.hybrid = Some(Hybrid {
            positive: m.positive.clone(),
            probability: p.probability,
            evidence_label,
            proposed: analysis.label,
            rule,
            reason,
            ledger: items,
        });
        Ok(())
    }
}
