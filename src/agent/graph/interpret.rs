//! Interpretability scores of an explanation on the paper's six dimensions, each in [0, 1], overall = mean.
//! (a) Deterministic checks against the actual graph — does the explanation name real hubs of *this* graph,
//! real modules and the most cohesive networks, correct global values, valid knowledge and case ids — and
//! (b) optionally a judge model scoring the same six dimensions with a written rubric (kept separate: a
//! model's score is an opinion, the checks are measurements).

use super::call::Caller;
use super::context::GraphContext;
use super::trace::{OutcomeClass, Trace};
use crate::agent::error::{AgentError, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub const DIMENSIONS: [&str; 6] =
    ["Domain Awareness", "Completeness", "Reflection Depth", "Region Insight", "Subgraph Insight", "Graph Insight"];

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Scores {
    pub domain_awareness: f64,
    pub completeness: f64,
    pub reflection_depth: f64,
    pub region_insight: f64,
    pub subgraph_insight: f64,
    pub graph_insight: f64,
    pub overall: f64,
}

impl Scores {
    pub fn values(&self) -> [f64; 6] {
        [
            self.domain_awareness,
            self.completeness,
            self.reflection_depth,
            self.region_insight,
            self.subgraph_insight,
            self.graph_insight,
        ]
    }

    /// "Domain Awareness 0.50, Completeness 0.25, …" (`sep` between dimensions).
    pub fn line(&self, sep: &str) -> String {
        DIMENSIONS.iter().zip(self.values()).map(|(d, v)| format!("{d} {v:.2}")).collect::<Vec<_>>().join(sep)
    }

    pub fn from_values(v: [f64; 6]) -> Scores {
        Scores {
            domain_awareness: v[0],
            completeness: v[1],
            reflection_depth: v[2],
            region_insight: v[3],
            subgraph_insight: v[4],
            graph_insight: v[5],
            overall: v.iter().sum::<f64>() / 6.0,
        }
    }

    pub fn mean(all: &[Scores]) -> Scores {
        let mut acc = [0.0; 6];
        for s in all {
            for (a, v) in acc.iter_mut().zip(s.values()) {
                *a += v;
            }
        }
        let n = all.len().max(1) as f64;
        Scores::from_values(acc.map(|a| a / n))
    }
}

/// What a text says about the graph, checked against it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mentions {
    pub regions: Vec<usize>,
    pub hub_regions: usize,
    pub subgraph_items: usize,
    pub subgraph_valid: usize,
    pub value_claims: usize,
    pub value_correct: usize,
}

const NETWORK_WORDS: &[(&str, &[&str])] = &[
    ("Vis", &["visual", "vis "]),
    ("SomMot", &["somatomotor", "sensorimotor", "sommot"]),
    ("DorsAttn", &["dorsal attention", "dorsattn"]),
    ("SalVentAttn", &["salience", "ventral attention", "salventattn"]),
    ("Limbic", &["limbic"]),
    ("Cont", &["control", "frontoparietal", "cont "]),
    ("Default", &["default"]),
];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// Whole-word, case-insensitive occurrences of `needle` in `hay` (both already lowercase).
fn has_word(hay: &str, needle: &str) -> bool {
    let mut start = 0;
    while let Some(p) = hay[start..].find(needle) {
        let a = start + p;
        let b = a + needle.len();
        let before = hay[..a].chars().next_back().is_none_or(|c| !is_word_char(c));
        let after = hay[b..].chars().next().is_none_or(|c| !is_word_char(c));
        if before && after {
            return true;
        }
        start = a + needle.len().max(1);
    }
    false
}

/// The first number within 40 characters after `at` in `text`.
fn number_after(text: &str, at: usize) -> Option<f64> {
    let tail: String = text[at..].chars().take(40).collect();
    let mut num = String::new();
    for c in tail.chars() {
        if c.is_ascii_digit() || (c == '.' && !num.is_empty() && !num.contains('.')) || (c == '-' && num.is_empty()) {
            num.push(c);
        } else if !num.is_empty() && num != "-" {
            break;
        } else {
            num.clear();
        }
    }
    num.trim_end_matches('.').parse().ok()
}

pub fn mentions(text: &str, ctx: &GraphContext) -> Mentions {
    let low = text.to_lowercase();
    let hubs = ctx.hub_regions();
    let mut m = Mentions::default();
    for (i, l) in ctx.labels().iter().enumerate() {
        if l.len() >= 3 && has_word(&low, &l.to_lowercase()) {
            m.regions.push(i);
        }
    }
    m.hub_regions = m.regions.iter().filter(|i| hubs.contains(i)).count();
    let top: Vec<String> = ctx.networks_by_cohesion().into_iter().take(3).map(|(n, _)| n).collect();
    let nets: Vec<String> = ctx.description.networks.clone();
    for (name, words) in NETWORK_WORDS {
        if !nets.iter().any(|n| n == name) {
            continue;
        }
        if words.iter().any(|w| has_word(&low, w.trim())) || low.contains(&format!("n:{}", name.to_lowercase())) {
            m.subgraph_items += 1;
            m.subgraph_valid += top.iter().any(|t| t == name) as usize;
        }
    }
    for k in 1..=40usize {
        if has_word(&low, &format!("module {k}")) || low.contains(&format!("[m:{k}]")) {
            m.subgraph_items += 1;
            m.subgraph_valid += (k <= ctx.metrics.n_modules) as usize;
        }
    }
    let mut values = ctx.global_values();
    if let Some(Ok(r)) = ctx.small_world_if_computed() {
        values.push(("sigma", &["sigma"], r.values.sigma));
        values.push(("omega", &["omega"], r.values.omega));
    }
    for (key, names, actual) in values {
        let cited = low.contains(&format!("[g:{key}]"));
        let claim = names.iter().find_map(|n| low.find(n).map(|p| p + n.len())).and_then(|p| number_after(&low, p));
        match claim {
            Some(v) => {
                m.value_claims += 1;
                m.value_correct += ((v - actual).abs() <= (0.1 * actual.abs()).max(0.005)) as usize;
            }
            None if cited => {
                m.value_claims += 1;
                m.value_correct += 1;
            }
            None => {}
        }
    }
    m
}

fn blend(valid: usize, items: usize, enough: usize) -> f64 {
    if items == 0 {
        return 0.0;
    }
    0.5 * valid as f64 / items as f64 + 0.5 * (valid as f64 / enough as f64).min(1.0)
}

/// The deterministic scores of a trace's explanation (0 everywhere when it has no decision).
pub fn score(trace: &Trace, ctx: &GraphContext) -> Scores {
    let Some(d) = &trace.decision else { return Scores::default() };
    let text = format!("{} {} {}", d.reasoning.clone().unwrap_or_default(), d.rationale, trace.report);
    let m = mentions(&text, ctx);
    let region = blend(m.hub_regions, m.regions.len(), 3);
    let subgraph = blend(m.subgraph_valid, m.subgraph_items, 2);
    let graph = blend(m.value_correct, m.value_claims, 2);
    let valid = |p: &str| d.evidence.iter().filter(|e| e.starts_with(p)).count();
    let domain = 0.5 * (valid("K:") as f64 / 2.0).min(1.0) + 0.5 * (valid("C:") as f64 / 2.0).min(1.0);
    let levels = [
        region > 0.0 || valid("R:") > 0,
        subgraph > 0.0 || valid("M:") + valid("N:") > 0,
        graph > 0.0 || valid("G:") > 0,
    ];
    let completeness =
        (levels.iter().filter(|x| **x).count() as f64 + (!d.rationale.trim().is_empty()) as u8 as f64) / 4.0;
    let reflection = match &trace.reflection {
        None => 0.0,
        Some(r) => {
            let words = r.critique.split_whitespace().count();
            let c = mentions(&r.critique, ctx);
            let grounded = c.hub_regions + c.subgraph_valid + c.value_correct > 0
                || trace.evidence.iter().any(|e| r.critique.contains(&e.id));
            let kept_grounding = r.after.evidence.len() >= r.before.evidence.len()
                && r.after.unknown_evidence.len() <= r.before.unknown_evidence.len();
            0.4 * (words >= 10) as u8 as f64 + 0.3 * grounded as u8 as f64 + 0.3 * kept_grounding as u8 as f64
        }
    };
    Scores::from_values([domain, completeness, reflection, region, subgraph, graph])
}

/// The judge's rubric (0–10 per dimension).
pub const RUBRIC: &str = "Score the explanation of a brain-network classification on six dimensions, each 0 (absent) \
to 10 (excellent), using the measured facts as ground truth:\n\
- domain_awareness: uses neuroscience knowledge and similar cases correctly and relevantly;\n\
- completeness: covers region, subgraph and graph level and justifies label and confidence;\n\
- reflection_depth: the critique checks claims against evidence and fixes what is unsupported (0 if there is no reflection);\n\
- region_insight: names regions that really are hubs of this graph and says why they matter;\n\
- subgraph_insight: names real modules or functional networks and their coupling correctly;\n\
- graph_insight: quotes global values (density, clustering, efficiency, modularity, path length) correctly.\n\
Claims that contradict the facts lower the score.";

/// Scores from a judge model (each 0–10 in its reply, divided by 10).
pub fn judge(caller: &Caller, trace: &mut Trace, ctx: &GraphContext) -> Result<Scores, AgentError> {
    let Some(d) = trace.decision.clone() else { return Err("no explanation to judge".into()) };
    let facts: Vec<String> = ctx.evidence().iter().map(|e| format!("[{}] {}", e.id, e.text)).collect();
    let critique = trace.reflection.as_ref().map_or("(no reflection)".to_string(), |r| r.critique.clone());
    let prompt = format!(
        "{RUBRIC}\n\nMeasured facts:\n{}\n\nExplanation — label {} (confidence {:.2}): {}\nReport: {}\nReflection: {critique}",
        facts.join("\n"),
        d.label,
        d.confidence,
        d.rationale,
        trace.report
    );
    let keys =
        ["domain_awareness", "completeness", "reflection_depth", "region_insight", "subgraph_insight", "graph_insight"];
    let mut props = serde_json::Map::new();
    for k in keys {
        props.insert(k.into(), json!({"type": "integer"}));
    }
    props.insert("comment".into(), json!({"type": "string"}));
    let schema = json!({"type": "object", "properties": props, "required": keys});
    let check = |v: &Value| -> Result<(), (OutcomeClass, String)> {
        for k in keys {
            if let Some(x) = v.get(k).and_then(Value::as_f64)
                && !(0.0..=10.0).contains(&x)
            {
                return Err((OutcomeClass::InvalidOutput, format!("{k} = {x} is not between 0 and 10")));
            }
        }
        Ok(())
    };
    let v = caller.ask(trace, "judge", prompt, "interpretability", schema, &check).map_err(|e| e.message)?;
    let mut vals = [0.0; 6];
    for (slot, k) in vals.iter_mut().zip(keys) {
        *slot = v[k].as_f64().unwrap_or(0.0) / 10.0;
    }
    Ok(Scores::from_values(vals))
}
