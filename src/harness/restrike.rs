//! Striking a stored run's reports as a run now strikes them (`grounding::strike`): the sentences that claim
//! work no step or code did, or state values nothing measured, are struck from the model's report; the
//! struck report is parsed again by the parser model (at temperature 0, as in the run) and the instance
//! rescored. Only reports with something to strike change; the trace keeps the report as written. A run made
//! after the strike was wired into the agents needs none of this.

use super::runner::{PARSER_TOKENS, roles::parse};
use crate::agent::grounding::{self, Claim};
use crate::bench::case::Case;
use crate::bench::results::Instance;
use crate::llm::{ChatModel, LlmError};
use crate::util::cancel::Cancel;
use serde_json::json;

/// The report of `inst` with its unsupported sentences struck, parsed again by `parser`: the claims struck
/// (empty when there was nothing to strike, the trace is neither paradigm's or was struck already; the
/// instance is then untouched). The caller rescores it.
pub fn strike_stored(
    inst: &mut Instance,
    case: &Case,
    parser: &dyn ChatModel,
    cancel: &Cancel,
) -> Result<Vec<Claim>, LlmError> {
    let task = case.query();
    let trace = &inst.sandbox["trace"];
    if trace.get("struck_claims").is_some() {
        return Ok(Vec::new());
    }
    let paradigm = trace["paradigm"].as_str().unwrap_or("").to_string();
    let Some((written, done)) = grounding::stored(trace, inst.report()) else { return Ok(Vec::new()) };
    let struck = grounding::strike(&written, &done, &task);
    // The model's text is the whole output (CodeAct, a model-written BrainAgent report) or a labelled part of
    // it (the system-written BrainAgent report): only that part changes.
    let output = inst.report().to_string();
    if struck.claims.is_empty() || !output.contains(&written) {
        return Ok(Vec::new());
    }
    let output = output.replacen(&written, &struck.text, 1);
    let parsed = parse(parser, case, &output, cancel, PARSER_TOKENS)?;
    let t = &mut inst.sandbox["trace"];
    let (as_written, text_key) = if paradigm == "brainagent" || paradigm == "hybrid" {
        ("report_as_written", Some("report_text"))
    } else {
        ("solution_as_written", None)
    };
    t[as_written] = json!(written);
    if let Some(k) = text_key {
        t[k] = json!(struck.text);
    }
    t["struck_claims"] = json!(struck.claims);
    inst.agent_output = json!(output);
    inst.parser_output = parsed.parsed;
    inst.sandbox["audit"]["parser"] = parsed.audit;
    inst.errors.retain(|e| !e.starts_with("parser_error"));
    inst.errors.extend(parsed.error);
    inst.extra.insert(
        "struck_after_run".into(),
        json!({"parser": parser.name(), "parser_tokens": parsed.spent.tokens, "claims": struck.claims.len()}),
    );
    Ok(struck.claims)
}
