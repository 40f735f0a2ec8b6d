//! What a BrainAgent (EEG) run records: the route, every planning round with its plan and executed segment
//! (tool, arguments after placeholder resolution, observation or error, ids registered), every model call,
//! every state change, the report, and the outcome.

use super::state::Change;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Route {
    /// The sub-agent that planned (after the check below).
    pub agent: String,
    pub reason: String,
    /// The routing checked against the task's subset: set when the supervisor chose a sub-agent without the
    /// domain tools the subset's tasks need, and the run went to the one that has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct StepRecord {
    pub tool: String,
    pub args: Value,
    /// ok, failed (the tool raised), not_executable (argument or tool check failed; the segment ends there).
    pub status: String,
    #[serde(default)]
    pub observation: Value,
    #[serde(default)]
    pub error: Option<String>,
    /// References repaired before the checks (a `$k` whose step registered no id of the kind the parameter
    /// takes, replaced by the latest such id in the state).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
    /// What ran: a validated tool, or (the hybrid paradigm's `python` step) code the model wrote, run in the
    /// CodeAct sandbox.
    #[serde(default, skip_serializing_if = "StepKind::is_tool")]
    pub kind: StepKind,
    /// A code step's blocks, in order (a failed block is written again once, shown its error).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub code: Vec<CodeBlock>,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    #[default]
    Tool,
    Code,
}

impl StepKind {
    pub fn is_tool(&self) -> bool {
        *self == StepKind::Tool
    }
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Tool => "tool",
            StepKind::Code => "code",
        }
    }
}

/// One block a code step ran in the sandbox.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CodeBlock {
    pub code: String,
    /// What the kernel returned (stdout, the last expression, the traceback), cut as CodeAct's observations.
    pub observation: String,
    pub failed: bool,
    #[serde(default)]
    pub timed_out: bool,
    pub seconds: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PlanRound {
    pub round: usize,
    /// The state summary the model planned from.
    pub state_summary: String,
    pub thought: String,
    /// The plan as the model wrote it.
    pub plan: Value,
    pub done: bool,
    pub executed: Vec<StepRecord>,
    /// Why the round was planned again: the first plan gave nothing to run (no steps, yet not done); the
    /// reason was shown to the model. `plan`, `thought` and `done` are the second plan's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replanned: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CallRecord {
    pub step: String,
    pub attempts: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Prompt tokens served from the provider's prefix cache.
    #[serde(default)]
    pub cached_tokens: u64,
    /// Of the cached tokens, those loaded from a prompt state saved on disk (local model).
    #[serde(default, skip_serializing_if = "crate::llm::types::is_zero")]
    pub disk_tokens: u64,
    pub latency_ms: f64,
    /// The model's raw text of the last attempt.
    pub raw: String,
    #[serde(default)]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EegTrace {
    pub paradigm: String,
    pub model: String,
    /// How the model sampled free text (its repetition control), when the provider says.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sampling: String,
    pub route: Option<Route>,
    pub rounds: Vec<PlanRound>,
    /// The model-written part of the report.
    pub report_text: String,
    /// The measured results the report was written from (its prompt's section): what its values are checked
    /// against (`grounding`), with the steps' outputs.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub measured: String,
    /// Why the report was asked for again (its first version claimed work no step did), when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_again: Option<String>,
    /// The report as the model wrote it, when sentences claiming work no step did (or values nothing measured)
    /// were struck from it after the re-ask (`grounding::strike`; `report_text` is what remains).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_as_written: Option<String>,
    /// The claims struck from the model's report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub struck_claims: Vec<crate::agent::grounding::claim::Claim>,
    pub calls: Vec<CallRecord>,
    pub changes: Vec<ChangeRecord>,
    /// ok, agent_error, api_infrastructure_error, cancelled, configuration_error.
    pub outcome: String,
    #[serde(default)]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ChangeRecord {
    pub round: usize,
    pub id: String,
    pub kind: String,
    pub what: String,
}

impl ChangeRecord {
    pub fn of(round: usize, c: &Change) -> ChangeRecord {
        ChangeRecord { round, id: c.id.clone(), kind: c.kind.to_string(), what: c.what.clone() }
    }
}

impl EegTrace {
    pub fn tokens(&self) -> u64 {
        self.calls.iter().map(|c| c.prompt_tokens + c.completion_tokens).sum()
    }

    pub fn model_seconds(&self) -> f64 {
        self.calls.iter().map(|c| c.latency_ms).sum::<f64>() / 1000.0
    }
}
