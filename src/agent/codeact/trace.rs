//! What a CodeAct run leaves: its rounds (reply, code, observation), why it ended, and the replies asked
//! again. The claims check (`agent::grounding`) reads it; it imports nothing of the run loop.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Round {
    pub round: usize,
    /// The model's reply (what it wrote).
    pub reply: String,
    pub code: Option<String>,
    /// What the kernel returned (tool output, not the model's).
    pub observation: String,
    pub failed: bool,
    pub timed_out: bool,
    pub restarted: bool,
    pub seconds: f64,
    pub code_sha256: Option<String>,
    pub observation_sha256: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub model_seconds: f64,
    /// The round's first reply when it resent the code of a failed round (which one): the model was asked
    /// again in the same round, and `reply` is its second answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resent: Option<Resent>,
    /// The round's first reply when it was a solution claiming work no code that ran did (once an instance):
    /// the model was told which work it claimed and asked again in the same round, and `reply` is its second answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution_again: Option<SolutionAgain>,
    /// When the block failed after some of its top-level statements ran: the first line of the statement that
    /// raised. The model's history shows the block from there on, the lines before it as one comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<usize>,
}

/// A reply that resent the code of a failed round, set aside in its round.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Resent {
    pub of_round: usize,
    pub reply: String,
}

/// A solution that claimed work no code that ran did, set aside in its round with the claims it made.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SolutionAgain {
    /// The kinds of work claimed (`grounding::Work::name`).
    pub works: Vec<String>,
    pub reply: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CodeActTrace {
    pub paradigm: String,
    pub model: String,
    /// How the model sampled free text, when the provider says (CodeAct's requests turn repetition off).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sampling: String,
    pub rounds: Vec<Round>,
    /// ok, agent_error, api_infrastructure_error, cancelled, configuration_error.
    pub outcome: String,
    pub error: Option<String>,
    /// Why the loop ended: solution, forced_solution, repeated_failures, max_rounds.
    pub ended_by: String,
    pub kernel_restarts: u32,
    /// The solution as the model wrote it, when sentences claiming work no code that ran did (or values
    /// nothing printed) were struck from it (`grounding::strike`; the report is what remains).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution_as_written: Option<String>,
    /// The claims struck from the solution.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub struck_claims: Vec<crate::agent::grounding::claim::Claim>,
}

impl CodeActTrace {
    pub fn tokens(&self) -> u64 {
        self.rounds.iter().map(|r| r.prompt_tokens + r.completion_tokens).sum()
    }
    pub fn model_seconds(&self) -> f64 {
        self.rounds.iter().map(|r| r.model_seconds).sum()
    }
}

/// The error line of a failed round's observation: its last line that is not one of BrainLens's notes.
pub fn error_line(observation: &str) -> Option<&str> {
    observation.trim().lines().rev().find(|l| !l.trim().is_empty() && !l.starts_with("Note:"))
}
