//! The prompts of each step, following the paper's structure: the task, the graph (triplets + analysis
//! functions), what the agent knows so far, and the JSON it must return. Schemas use the subset of
//! `llm::schema`, so the local provider enforces them while decoding.

use super::task::Task;
use serde_json::{Value, json};

pub const SYSTEM: &str = "You are BrainAgent, a research assistant that analyses functional brain connectomes. \
You reason only from the measurements, retrieved knowledge and retrieved cases you are given, cite them by their \
ids in square brackets (e.g. [G:modularity], [R:label], [K:id], [C:id]), and never claim a diagnosis: your answer \
is an opinion for research.";

pub fn task_block(task: &Task) -> String {
    format!("Task: {} {}\nAllowed labels: {}.", task.title, task.description, task.labels.join(", "))
}

pub fn understanding(task: &Task, graph_text: &str) -> String {
    format!(
        "{}\n\nThe graph, thresholded to its strongest links, with the results of the analysis functions (density, \
average degree, clustering, efficiency, community structure, functional networks) and its links as (source, \
target, weight) triplets, high-degree regions first:\n{graph_text}\n\nDescribe this graph at three levels: \
region level (hubs and salient regions), subgraph level (modules and functional networks) and graph level \
(integration, segregation, small-world organisation). Use only the numbers above.",
        task_block(task)
    )
}

pub fn understanding_schema() -> Value {
    json!({"type": "object", "properties": {
        "region_level": {"type": "object", "properties": {
            "hubs": {"type": "array", "items": {"type": "string"}},
            "salient_regions": {"type": "string"}}, "required": ["hubs", "salient_regions"]},
        "subgraph_level": {"type": "object", "properties": {
            "modules": {"type": "string"}, "functional_networks": {"type": "string"}},
            "required": ["modules", "functional_networks"]},
        "graph_level": {"type": "object", "properties": {
            "integration": {"type": "string"}, "segregation": {"type": "string"}, "small_world": {"type": "string"}},
            "required": ["integration", "segregation", "small_world"]}
    }, "required": ["region_level", "subgraph_level", "graph_level"]})
}

/// What the model knows before a step: the understanding (or the raw graph when it is ablated), the report, the
/// observations so far.
pub fn context_block(known: &str, report: &str, observations: &[String]) -> String {
    let mut s = format!(
        "What you know about this graph:\n{known}\n\nYour report so far: {}\n",
        if report.is_empty() { "(empty)" } else { report }
    );
    if !observations.is_empty() {
        s.push_str("\nObservations so far:\n");
        for o in observations {
            s.push_str(o);
            s.push('\n');
        }
    }
    s
}

pub fn step(task: &Task, context: &str, menu: &str, round: usize, rounds: usize, report_chars: usize) -> String {
    format!(
        "{}\n\n{context}\nRound {round} of {rounds}. Think about what evidence is still missing, rewrite the report \
(at most {report_chars} characters: what matters so far for the label), then choose exactly one tool:\n{menu}\n\
Put the tool's arguments in \"arguments\" as a JSON object with exactly the argument names listed.",
        task_block(task)
    )
}

/// A round's reply; `action` is `tools::action_schema` (one menu tool with its own arguments).
pub fn step_schema(action: Value) -> Value {
    json!({"type": "object", "properties": {
        "think": {"type": "string"},
        "report": {"type": "string"},
        "action": action
    }, "required": ["think", "report", "action"]})
}

pub fn analysis(task: &Task, context: &str, evidence: &str, cot: bool) -> String {
    format!(
        "{}\n\n{context}\nEvidence table (cite these ids):\n{evidence}\n\n{}Choose the label (one of {}), a confidence \
between 0 and 1, and a rationale that cites the evidence ids it rests on. List the cited ids in \"evidence\".",
        task_block(task),
        if cot { "First reason step by step in \"reasoning\". " } else { "" },
        task.labels.join(", ")
    )
}

/// The cited ids: an enum of the evidence table's ids, so a constrained reply cites only evidence that exists.
fn evidence_schema(ids: &[String]) -> Value {
    if ids.is_empty() {
        json!({"type": "array", "items": {"type": "string"}})
    } else {
        json!({"type": "array", "items": {"enum": ids}})
    }
}

pub fn analysis_schema(task: &Task, cot: bool, ids: &[String]) -> Value {
    let mut props = serde_json::Map::new();
    if cot {
        props.insert("reasoning".into(), json!({"type": "string"}));
    }
    props.insert("label".into(), json!({"enum": task.labels}));
    props.insert("confidence".into(), json!({"type": "number"}));
    props.insert("rationale".into(), json!({"type": "string"}));
    props.insert("evidence".into(), evidence_schema(ids));
    let required: Vec<&String> = props.keys().collect();
    json!({"type": "object", "properties": props, "required": required})
}

pub fn reflection(task: &Task, context: &str, evidence: &str, decision: &str) -> String {
    format!(
        "{}\n\n{context}\nEvidence table:\n{evidence}\n\nYour analysis: {decision}\n\nReflect: check the label against the \
graph evidence, the knowledge and the cases. Is every claim supported by a cited id? Is anything inconsistent, or \
the confidence too high for the evidence? Write a critique, set \"revise\" to true only if the analysis must \
change, and give the final label (one of {}), confidence, rationale and evidence ids.",
        task_block(task),
        task.labels.join(", ")
    )
}

pub fn reflection_schema(task: &Task, ids: &[String]) -> Value {
    json!({"type": "object", "properties": {
        "critique": {"type": "string"},
        "revise": {"type": "boolean"},
        "label": {"enum": task.labels},
        "confidence": {"type": "number"},
        "rationale": {"type": "string"},
        "evidence": evidence_schema(ids)
    }, "required": ["critique", "revise", "label", "confidence", "rationale", "evidence"]})
}

pub fn arguments(task: &Task, context: &str, tool: &super::tools::ToolSpec, problem: &str) -> String {
    let params: Vec<String> = tool
        .params
        .iter()
        .map(|p| format!("{}{}: {}", p.name, if p.required { "" } else { " (optional)" }, p.about))
        .collect();
    format!(
        "{}\n\n{context}\nYou chose the tool {} ({}). Your arguments were not accepted: {problem}.\nGive only its \
arguments as a JSON object with these names: {}.",
        task_block(task),
        tool.name,
        tool.about,
        params.join("; ")
    )
}
