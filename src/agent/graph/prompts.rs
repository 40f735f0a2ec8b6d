//! The prompts of each step, following the paper's structure: the task, the graph (triplets + analysis
//! functions), what the agent knows so far, and the JSON it must return. Schemas use the subset of
//! `llm::schema`, so the local provider enforces them while decoding.

use super::method::ReflectionForm;
use super::task::Task;
use serde_json::{Value, json};

pub const SYSTEM: &str = "You are BrainAgent, a research assistant that analyses functional brain connectomes. \
You reason only from the measurements, retrieved knowledge and retrieved cases you are given, cite them by their \
ids in square brackets (e.g. [G:modularity], [R:label], [K:id], [C:id]), and never claim a diagnosis: your answer \
is an opinion for research.";

pub fn task_block(task: &Task) -> String {
    format!("Task: {} {}\nAllowed labels: {}.", task.title, task.description, task.labels.join(", "))
}

/// The system message of every step of one analysis: who the agent is, the task and (BrainAgent) its tool
/// menu. It is the same for every subject of a task and method, and it comes first, so its saved key/value
/// state serves every later analysis, in any process (`llm::local::prompt_states`); the subject's data follow
/// in the user message.
pub fn system(task: &Task, tools: Option<&str>) -> String {
    let mut s = format!("{SYSTEM}\n\n{}", task_block(task));
    if let Some(t) = tools {
        s.push_str(&format!("\n\nTools (each is called at most once; finish ends the search):\n{t}"));
    }
    s
}

/// The graph's measured values, one citable line each (`G:`, `R:`, `M:`, `N:` ids): every step after the task
/// starts with this block, so each continues the cached prefix of the one before.
pub fn measured_block(table: &str) -> String {
    format!(
        "The graph, thresholded to its strongest links. Its measured values (analysis functions), each with the id \
to cite it by:\n{table}"
    )
}

/// The graph alone, as the baselines and the no-understanding ablation see it: its strongest links.
pub fn graph_block(links: &str) -> String {
    format!("The graph, serialised as its strongest links:\n{links}")
}

/// The understanding step reads the measured values, the network coupling and the strongest links.
pub fn understanding(measured: &str, links: &str) -> String {
    format!(
        "{measured}\n\n{links}\nDescribe this graph at three levels: region level (hubs and salient \
regions), subgraph level (modules and functional networks) and graph level (integration, segregation, small-world \
organisation). Use only the numbers above."
    )
}

/// The understanding step's reply: hubs and salient regions are region labels of the graph (an enum of them:
/// a small model spelling labels freely invents them), the levels short texts.
pub fn understanding_schema(labels: &[String]) -> Value {
    let region = if labels.is_empty() { json!({"type": "string"}) } else { json!({"enum": labels}) };
    let text = json!({"type": "string", "maxLength": LEVEL_CHARS});
    json!({"type": "object", "properties": {
        "region_level": {"type": "object", "properties": {
            "hubs": {"type": "array", "minItems": 1, "maxItems": 4, "items": region},
            "salient_regions": {"type": "array", "maxItems": 4, "items": region},
            "note": text}, "required": ["hubs", "salient_regions", "note"]},
        "subgraph_level": {"type": "object", "properties": {
            "modules": text, "functional_networks": text},
            "required": ["modules", "functional_networks"]},
        "graph_level": {"type": "object", "properties": {
            "integration": text, "segregation": text, "small_world": text},
            "required": ["integration", "segregation", "small_world"]}
    }, "required": ["region_level", "subgraph_level", "graph_level"]})
}

/// What an understanding reply must have: the three levels, in any shape.
pub fn understanding_accepted() -> Value {
    json!({"type": "object", "properties": {"region_level": {}, "subgraph_level": {}, "graph_level": {}},
        "required": ["region_level", "subgraph_level", "graph_level"]})
}

/// What the model knows before a step, in the order it grows (so each step's prompt starts with the one
/// before): the graph (its measured values, and the understanding or the links), the observations. The tools
/// are in the system message.
pub fn context_block(known: &str, observations: &[String]) -> String {
    let mut s = format!("{known}\n");
    if !observations.is_empty() {
        s.push_str("\nObservations so far:\n");
        for o in observations {
            s.push_str(o);
            s.push('\n');
        }
    }
    s
}

fn report_line(report: &str) -> String {
    format!("Your report so far: {}", if report.is_empty() { "(empty)" } else { report })
}

pub fn step(context: &str, report: &str, left: &[String], round: usize, rounds: usize, report_chars: usize) -> String {
    format!(
        "{context}\n{}\n\nRound {round} of {rounds}; tools left: {}. Think about what evidence is still \
missing, rewrite the report (at most {report_chars} characters: what matters so far for the label), then choose \
exactly one tool left. Put its arguments in \"arguments\" as a JSON object with exactly the argument names listed \
for it.",
        report_line(report),
        left.join(", ")
    )
}

/// Longest thought of a round, reasoning, critique and claim the local model may write (characters): bounds
/// on free text keep a small model from running on (they are sent to remote endpoints too, which may ignore
/// them; a longer reply is still accepted).
pub const THINK_CHARS: usize = 200;
pub const CLAIM_CHARS: usize = 160;
/// Each of the understanding's six level descriptions.
pub const LEVEL_CHARS: usize = 80;
/// A rationale is one to `MAX_CLAIMS` claims, each citing up to `MAX_CITED` evidence ids.
pub const MAX_CLAIMS: usize = 4;
pub const MAX_CITED: usize = 3;

/// A round's reply; `action` is `tools::action_schema` (one menu tool with its own arguments).
pub fn step_schema(action: Value, report_chars: usize) -> Value {
    json!({"type": "object", "properties": {
        "think": {"type": "string", "maxLength": THINK_CHARS},
        "report": {"type": "string", "maxLength": report_chars},
        "action": action
    }, "required": ["think", "report", "action"]})
}

/// The analysis step; `cites_ids`: the context shows citable ids (else the claims rest on links and regions);
/// `rationale_first`: the claims are asked (and written) before the label.
pub fn analysis(task: &Task, context: &str, report: &str, cot: bool, cites_ids: bool, rationale_first: bool) -> String {
    let rests_on = if cites_ids {
        "the ids it rests on (measured values, knowledge [K:…], cases [C:…] above)"
    } else {
        "the links or regions of the graph it rests on"
    };
    let rationale = format!("{MAX_CLAIMS} claims: each claim one short sentence, with {rests_on} in its \"evidence\"");
    let labels = task.labels.join(", ");
    let ask = if rationale_first {
        format!(
            "Write a rationale of 1 to {rationale}; then choose the label the claims support (one of {labels}) and a \
confidence between 0 and 1."
        )
    } else {
        format!(
            "Choose the label (one of {labels}), a confidence between 0 and 1, and a rationale of 1 to {rationale}."
        )
    };
    format!(
        "{context}\n{}\n\n{}{ask}",
        report_line(report),
        if cot { "First reason step by step in \"reasoning\". " } else { "" },
    )
}

/// brainagent-hybrid's analysis: the evidence with its ids and the label each supports, the evidence's decision,
/// and what an override needs.
pub fn hybrid_analysis(evidence: &str, decision: &str, (p, prior): (f64, f64), positive: &str, second: &str) -> String {
    format!(
        "The evidence, each item with the id to cite it by and the label it supports:\n{evidence}\n\nThe \
evidence decides {decision} (the cohort model's calibrated P({positive}) = {p:.3}, against its training rate {prior:.3}). Write a rationale of 1 to \
{MAX_CLAIMS} claims explaining the decision, each one short sentence with the ids it rests on in its \
\"evidence\": the first on the cohort model and its edges (P:, E:), the second on {second}, then any other; say \
where the evidence disagrees. \
Then give the label you conclude and a confidence between 0 and 1. Concluding the other label counts only if your \
claims cite similar cases [C:…] of that label: the cohort model's own items (P:, E:) are already weighed in its P."
    )
}

/// brainagent-hybrid's reply: its claims first — one on the cohort model (`on_model`, citing at least two P:/E:
/// ids), one on `second` (`on_second`: similar cases, or the graph's metrics when there are none), up to two
/// more (`more`, any id) — so every rationale cites at least three ids of at least two kinds; then the label
/// and a confidence. [`hybrid_claims`] makes them one list of claims.
pub fn hybrid_schema(task: &Task, model_ids: &[String], second: &[String], all: &[String]) -> Value {
    let claim = |ids: &[String], min: usize| {
        json!({"type": "object", "properties": {
            "claim": {"type": "string", "maxLength": CLAIM_CHARS},
            "evidence": {"type": "array", "minItems": min, "maxItems": MAX_CITED, "items": {"enum": ids}}
        }, "required": ["claim", "evidence"]})
    };
    json!({"type": "object", "properties": {
        "on_model": claim(model_ids, 2),
        "on_second": claim(second, 1),
        "more": {"type": "array", "maxItems": MAX_CLAIMS - 2, "items": claim(all, 1)},
        "label": {"enum": task.labels},
        "confidence": {"type": "number"}
    }, "required": ["on_model", "on_second", "more", "label", "confidence"]})
}

/// A hybrid reply with its claims as one list (`claims`), as every other analysis writes them.
pub fn hybrid_claims(mut v: Value) -> Value {
    let mut claims = vec![v["on_model"].take(), v["on_second"].take()];
    claims.extend(v["more"].as_array().cloned().unwrap_or_default());
    v["claims"] = Value::Array(claims.into_iter().filter(|c| c.is_object()).collect());
    v
}

/// The claims of a rationale; cited ids are an enum of the evidence table's ids, so a constrained reply
/// cites only evidence that exists.
fn claims_schema(ids: &[String]) -> Value {
    let id = if ids.is_empty() { json!({"type": "string"}) } else { json!({"enum": ids}) };
    json!({"type": "array", "minItems": 1, "maxItems": MAX_CLAIMS, "items": {"type": "object", "properties": {
        "claim": {"type": "string", "maxLength": CLAIM_CHARS},
        "evidence": {"type": "array", "maxItems": MAX_CITED, "items": id}
    }, "required": ["claim", "evidence"]}})
}

/// The analysis' reply, in the order it is written: the label, its confidence, then the claims; with
/// `rationale_first` the claims, then the label and confidence.
pub fn analysis_schema(task: &Task, cot: bool, ids: &[String], rationale_first: bool) -> Value {
    let mut props = serde_json::Map::new();
    if cot {
        props.insert("reasoning".into(), json!({"type": "string", "maxLength": 2 * THINK_CHARS}));
    }
    if rationale_first {
        props.insert("claims".into(), claims_schema(ids));
    }
    props.insert("label".into(), json!({"enum": task.labels}));
    props.insert("confidence".into(), json!({"type": "number"}));
    if !rationale_first {
        props.insert("claims".into(), claims_schema(ids));
    }
    let required: Vec<&String> = props.keys().collect();
    json!({"type": "object", "properties": props, "required": required})
}

/// The reflection continues the analysis' prompt through the report, then reads the analysis.
pub fn reflection(task: &Task, context: &str, report: &str, decision: &str, form: ReflectionForm) -> String {
    let answer = match form {
        ReflectionForm::Revise => "Write a critique, set \"revise\" to true only if the analysis must change, and give",
        ReflectionForm::Label => "Write a critique, then give",
    };
    format!(
        "{context}\n{}\n\nYour analysis: {decision}\n\nReflect: check the label against the graph \
evidence, the knowledge and the cases. Is every claim supported by a cited id? Is anything inconsistent, or the \
confidence too high for the evidence? {answer} the final label (one of {}), confidence and claims (each with the \
evidence ids it rests on).",
        report_line(report),
        task.labels.join(", ")
    )
}

pub fn reflection_schema(task: &Task, ids: &[String], form: ReflectionForm) -> Value {
    let mut props = serde_json::Map::new();
    props.insert("critique".into(), json!({"type": "string", "maxLength": THINK_CHARS}));
    if form == ReflectionForm::Revise {
        props.insert("revise".into(), json!({"type": "boolean"}));
    }
    props.insert("label".into(), json!({"enum": task.labels}));
    props.insert("confidence".into(), json!({"type": "number"}));
    props.insert("claims".into(), claims_schema(ids));
    let required: Vec<&String> = props.keys().collect();
    json!({"type": "object", "properties": props, "required": required})
}

pub fn arguments(context: &str, tool: &super::tools::ToolSpec, problem: &str) -> String {
    let params: Vec<String> = tool
        .params
        .iter()
        .map(|p| format!("{}{}: {}", p.name, if p.required { "" } else { " (optional)" }, p.about))
        .collect();
    format!(
        "{context}\nYou chose the tool {} ({}). Your arguments were not accepted: {problem}.\nGive only its \
arguments as a JSON object with these names: {}.",
        tool.name,
        tool.about,
        params.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `revise` form is what every run before the option asked, word for word and key for key (the runs on
    /// record stay comparable, and a reflection re-run from a stored run replays their exact requests).
    #[test]
    fn the_revise_form_is_the_reflection_every_earlier_run_asked() {
        let task = Task::load("adhd").unwrap();
        let p = reflection(&task, "CONTEXT", "", "{\"label\":\"HC\"}", ReflectionForm::Revise);
        assert!(p.ends_with(
            "Your analysis: {\"label\":\"HC\"}\n\nReflect: check the label against the graph evidence, the knowledge \
             and the cases. Is every claim supported by a cited id? Is anything inconsistent, or the confidence too \
             high for the evidence? Write a critique, set \"revise\" to true only if the analysis must change, and \
             give the final label (one of ADHD, HC), confidence and claims (each with the evidence ids it rests on)."
        ));
        let ids = vec!["G:density".to_string()];
        let schema = reflection_schema(&task, &ids, ReflectionForm::Revise);
        let before = json!({"type": "object", "properties": {
            "critique": {"type": "string", "maxLength": THINK_CHARS},
            "revise": {"type": "boolean"},
            "label": {"enum": task.labels},
            "confidence": {"type": "number"},
            "claims": claims_schema(&ids)
        }, "required": ["critique", "revise", "label", "confidence", "claims"]});
        assert_eq!(serde_json::to_string(&schema).unwrap(), serde_json::to_string(&before).unwrap());
        let label = reflection_schema(&task, &ids, ReflectionForm::Label);
        assert_eq!(label["required"], json!(["critique", "label", "confidence", "claims"]));
        let p = reflection(&task, "CONTEXT", "", "{}", ReflectionForm::Label);
        assert!(p.contains("Write a critique, then give the final label (one of ADHD, HC)") && !p.contains("revise"));
    }

    /// Without `rationale_first` the analysis is what every earlier run asked, word for word and key for key;
    /// with it the claims come first in the request and in the reply's schema.
    #[test]
    fn the_rationale_first_analysis_asks_for_the_claims_before_the_label() {
        let task = Task::load("adhd").unwrap();
        let ids = vec!["G:density".to_string()];
        let p = analysis(&task, "CONTEXT", "", false, true, false);
        assert!(p.ends_with(
            "Choose the label (one of ADHD, HC), a confidence between 0 and 1, and a rationale of 1 to 4 claims: \
             each claim one short sentence, with the ids it rests on (measured values, knowledge [K:…], cases [C:…] \
             above) in its \"evidence\"."
        ));
        let before = json!({"type": "object", "properties": {
            "label": {"enum": task.labels},
            "confidence": {"type": "number"},
            "claims": claims_schema(&ids)
        }, "required": ["label", "confidence", "claims"]});
        let schema = analysis_schema(&task, false, &ids, false);
        assert_eq!(serde_json::to_string(&schema).unwrap(), serde_json::to_string(&before).unwrap());
        let p = analysis(&task, "CONTEXT", "", false, true, true);
        assert!(p.ends_with(
            "Write a rationale of 1 to 4 claims: each claim one short sentence, with the ids it rests on (measured \
             values, knowledge [K:…], cases [C:…] above) in its \"evidence\"; then choose the label the claims \
             support (one of ADHD, HC) and a confidence between 0 and 1."
        ));
        assert_eq!(analysis_schema(&task, false, &ids, true)["required"], json!(["claims", "label", "confidence"]));
        let cot = analysis_schema(&task, true, &ids, true);
        assert_eq!(cot["required"], json!(["reasoning", "claims", "label", "confidence"]));
    }
}
