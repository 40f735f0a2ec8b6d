//! The record of one analysis: every model call's parsed output, each loop round (thought, report, tool call
//! with raw and repaired arguments, observation), the analysis, the reflection (before and after), the
//! outcome class, token and time accounting. Serialised into run files and exported as JSON or Markdown.

use super::context::Evidence;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a run ended. `ok` is the only class with a final label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeClass {
    Ok,
    /// The model's label was not in the task's label set, after one corrective retry.
    OutOfLabelSet,
    /// Not JSON, or JSON not valid against the step's schema, after one corrective retry.
    InvalidOutput,
    /// The endpoint refused the request (4xx) or the model failed.
    ModelError,
    /// Timeouts, connection errors, 5xx: rerun on resume.
    ApiInfrastructureError,
    ConfigurationError,
    Cancelled,
}

impl OutcomeClass {
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeClass::Ok => "ok",
            OutcomeClass::OutOfLabelSet => "out_of_label_set",
            OutcomeClass::InvalidOutput => "invalid_output",
            OutcomeClass::ModelError => "model_error",
            OutcomeClass::ApiInfrastructureError => "api_infrastructure_error",
            OutcomeClass::ConfigurationError => "configuration_error",
            OutcomeClass::Cancelled => "cancelled",
        }
    }

    /// Failures of the infrastructure, not of the model: a resumed run does them again.
    pub fn rerun_on_resume(self) -> bool {
        matches!(self, OutcomeClass::ApiInfrastructureError | OutcomeClass::Cancelled)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub class: OutcomeClass,
    pub message: String,
    /// The step that failed (understanding, round 2, analysis, reflection), empty when ok.
    #[serde(default)]
    pub step: String,
}

/// One model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Call {
    pub step: String,
    /// The model that answered (the provider's name for it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Prompt tokens served from the provider's prefix cache.
    #[serde(default)]
    pub cached_tokens: u64,
    /// Of the cached tokens, those loaded from a prompt state saved on disk (local model).
    #[serde(default, skip_serializing_if = "crate::llm::types::is_zero")]
    pub disk_tokens: u64,
    /// Speculative decoding: completion tokens drafted by prompt lookup, and those the model chose.
    #[serde(default, skip_serializing_if = "crate::llm::types::is_zero")]
    pub drafted_tokens: u64,
    #[serde(default, skip_serializing_if = "crate::llm::types::is_zero")]
    pub accepted_tokens: u64,
    pub ms: f64,
    /// 2 when a corrective retry was needed.
    pub attempts: u32,
    /// The reply as the model wrote it (last attempt).
    pub raw: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The model's own probabilities at each enum choice of the reply (local model only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<crate::llm::EnumChoice>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Round {
    pub index: usize,
    /// The tools offered this round.
    pub menu: Vec<String>,
    pub think: String,
    pub report: String,
    #[serde(default)]
    pub report_truncated: bool,
    pub tool: String,
    /// Arguments as the model sent them.
    pub arguments: Value,
    /// Arguments after validation and repair (null when rejected).
    pub checked: Value,
    pub repairs: Vec<String>,
    /// Arguments the model gave when asked again for them alone (after the first ones were rejected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_retry: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
    pub observation: String,
    /// Structured tool result (HARK candidates, CARD hits, …).
    pub data: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Round {
    /// A round whose step could not be used: the menu it was offered and why.
    pub fn failed(index: usize, menu: &[String], message: &str) -> Self {
        Round { index, menu: menu.to_vec(), error: Some(message.to_string()), ..Default::default() }
    }
}

/// One claim of a rationale and the evidence ids it cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Claim {
    pub text: String,
    pub evidence: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Decision {
    pub label: String,
    pub confidence: f64,
    /// The claims' texts joined (the whole rationale as one text).
    pub rationale: String,
    /// The rationale claim by claim, each with the ids it cites (empty in traces written before claims).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<Claim>,
    /// Evidence ids the rationale cites that exist in the evidence table.
    pub evidence: Vec<String>,
    /// Cited ids that do not exist (kept, shown, counted against the explanation).
    #[serde(default)]
    pub unknown_evidence: Vec<String>,
    /// Chain-of-thought reasoning (cot method).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The model's own probability of each label (the local model: its likelihood of the whole label among the
    /// task's labels, from the constrained decoder; a remote endpoint: from the `logprobs` it returns), beside the
    /// confidence it states; None when the provider cannot tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_probabilities: Option<Vec<(String, f64)>>,
}

impl Decision {
    /// The model's probability of the label it chose.
    pub fn label_probability(&self) -> Option<f64> {
        self.label_probabilities.as_ref()?.iter().find(|(l, _)| *l == self.label).map(|(_, p)| *p)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    pub critique: String,
    pub revised: bool,
    pub before: Decision,
    pub after: Decision,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Counters {
    pub repaired_arguments: usize,
    pub rejected_arguments: usize,
    pub invalid_outputs: usize,
    pub out_of_label_set: usize,
    /// Rounds whose arguments were asked for again with the tool's own schema.
    #[serde(default)]
    pub argument_retries: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub sample: String,
    pub graph: String,
    pub task: String,
    pub method: String,
    pub model: String,
    /// How the model sampled free text (its repetition control), when the provider says.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sampling: String,
    pub seed: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub understanding: Option<Value>,
    pub rounds: Vec<Round>,
    /// The fixed-size report after the last round.
    pub report: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Decision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reflection: Option<Reflection>,
    /// brainagent-hybrid: the evidence decision, the analysis' proposal, the rule and the evidence ledger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hybrid: Option<super::ledger::Hybrid>,
    /// The answer: the reflection's when there is one, else the analysis'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    pub outcome: Outcome,
    pub evidence: Vec<Evidence>,
    pub calls: Vec<Call>,
    pub counters: Counters,
    pub elapsed_ms: f64,
}

impl Trace {
    /// Who wrote the decision, in the words the CLI and the room show.
    pub fn rationale_source(&self) -> &'static str {
        match super::method::Method::parse(&self.method) {
            Ok(m) if m.is_baseline() => "a supervised baseline, no language model",
            _ if self.model == "none" => "measured retrieval, no language model",
            _ => "written by the model",
        }
    }

    pub fn prompt_tokens(&self) -> u64 {
        self.calls.iter().map(|c| c.prompt_tokens).sum()
    }
    pub fn completion_tokens(&self) -> u64 {
        self.calls.iter().map(|c| c.completion_tokens).sum()
    }
    pub fn cached_tokens(&self) -> u64 {
        self.calls.iter().map(|c| c.cached_tokens).sum()
    }
    pub fn disk_tokens(&self) -> u64 {
        self.calls.iter().map(|c| c.disk_tokens).sum()
    }
    pub fn label(&self) -> Option<&str> {
        self.decision.as_ref().map(|d| d.label.as_str())
    }

    /// The text of evidence `id` (what a claim citing it rests on).
    pub fn evidence_text(&self, id: &str) -> Option<&str> {
        self.evidence.iter().find(|e| e.id == id).map(|e| e.text.as_str())
    }

    /// The whole trace as Markdown (export).
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "# BrainAgent analysis of {}\n\nTask {} · method {} · model {} · seed {}\n\n> Research use only — not a diagnosis. Text below was written by a language model unless marked as measured.\n\n",
            self.sample, self.task, self.method, self.model, self.seed
        );
        s.push_str(&format!(
            "**Outcome:** {}{}\n\n",
            self.outcome.class.as_str(),
            if self.outcome.message.is_empty() {
                String::new()
            } else {
                format!(" — {} ({})", self.outcome.message, self.outcome.step)
            }
        ));
        if let Some(d) = &self.decision {
            s.push_str(&format!(
                "## Answer\n\n**Label:** {} · **confidence:** {:.2}{}\n\n",
                d.label,
                d.confidence,
                d.label_probability().map_or(String::new(), |p| format!(" · **model's label probability:** {p:.2}")),
            ));
            if d.claims.is_empty() {
                s.push_str(&format!("{}\n\nEvidence cited: {}\n\n", d.rationale, d.evidence.join(", ")));
            } else {
                s.push_str(
                    "Claims (written by the model), each with the evidence it cites (measured or retrieved):\n\n",
                );
                for c in &d.claims {
                    s.push_str(&format!("- {}\n", c.text));
                    for id in &c.evidence {
                        match self.evidence_text(id) {
                            Some(t) => s.push_str(&format!("  - `{id}` {t}\n")),
                            None => s.push_str(&format!("  - `{id}` (not in the evidence table)\n")),
                        }
                    }
                }
                s.push('\n');
            }
            if !d.unknown_evidence.is_empty() {
                s.push_str(&format!("Cited ids not in the evidence table: {}\n\n", d.unknown_evidence.join(", ")));
            }
        }
        if let Some(u) = &self.understanding {
            s.push_str(&format!(
                "## Understanding (model)\n\n```json\n{}\n```\n\n",
                serde_json::to_string_pretty(u).unwrap_or_default()
            ));
        }
        for r in &self.rounds {
            s.push_str(&format!(
                "## Round {}\n\n**Think:** {}\n\n**Report:** {}\n\n**Action:** `{}` {}\n\n",
                r.index, r.think, r.report, r.tool, r.arguments
            ));
            if let Some(a) = &r.arguments_retry {
                s.push_str(&format!("Arguments asked again with the tool's schema: {a}\n\n"));
            }
            if !r.repairs.is_empty() {
                s.push_str(&format!("Repaired arguments: {}\n\n", r.repairs.join("; ")));
            }
            if let Some(m) = &r.rejected {
                s.push_str(&format!("Rejected: {m}\n\n"));
            }
            if let Some(e) = &r.error {
                s.push_str(&format!("Error: {e}\n\n"));
            }
            s.push_str(&format!("**Observation (measured):**\n\n```\n{}\n```\n\n", r.observation.trim_end()));
        }
        if let Some(a) = &self.analysis {
            s.push_str(&format!("## Analysis\n\n{} ({:.2}): {}\n\n", a.label, a.confidence, a.rationale));
        }
        if let Some(r) = &self.reflection {
            s.push_str(&format!(
                "## Reflection\n\n{}\n\nBefore: {} ({:.2}) · after: {} ({:.2}){}\n\n",
                r.critique,
                r.before.label,
                r.before.confidence,
                r.after.label,
                r.after.confidence,
                if r.revised { " · revised" } else { " · kept" }
            ));
        }
        s.push_str("## Evidence table (measured or retrieved)\n\n");
        for e in &self.evidence {
            s.push_str(&format!("- `{}` {}\n", e.id, e.text));
        }
        s.push_str(&format!("\n{}\n", self.cost_line()));
        s
    }

    /// Calls, tokens (and how many prompt tokens the prefix cache served) and wall time, as every face shows it.
    pub fn cost_line(&self) -> String {
        format!(
            "{} model calls · {} prompt ({} from the prefix cache, {} of them from disk) + {} completion tokens · \
             {:.1} s",
            self.calls.len(),
            self.prompt_tokens(),
            self.cached_tokens(),
            self.disk_tokens(),
            self.completion_tokens(),
            self.elapsed_ms / 1000.0
        )
    }
}

/// One piece of a word diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// Word-level diff of two texts (longest common subsequence of words): how reflection changed a rationale.
pub fn word_diff<'a>(before: &'a str, after: &'a str) -> Vec<Change<'a>> {
    let a: Vec<&str> = before.split_whitespace().collect();
    let b: Vec<&str> = after.split_whitespace().collect();
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: common words of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push(Change::Same(a[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(Change::Added(b[j]));
            j += 1;
        } else {
            out.push(Change::Removed(a[i]));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_diff_keeps_common_words_and_marks_changes() {
        let d = word_diff("label HC with high confidence", "label HC with moderate confidence");
        assert_eq!(
            d,
            [
                Change::Same("label"),
                Change::Same("HC"),
                Change::Same("with"),
                Change::Added("moderate"),
                Change::Removed("high"),
                Change::Same("confidence")
            ]
        );
        assert!(word_diff("", "").is_empty());
        assert_eq!(word_diff("a", ""), [Change::Removed("a")]);
    }
}
