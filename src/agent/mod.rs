//! Agents over the analysis core. `graph`: BrainAgent for connectomes (understanding, the
//! Think-Report-Action-Observation loop over HARK, CARD and the network analysis functions, analysis,
//! reflection, baselines, batch evaluation and interpretability scores). `eeg`: BrainAgent for EEG tasks
//! (supervisor, sub-agents, shared state, signal tools) — BrainBench's BrainAgent paradigm.

pub mod codeact;
pub mod eeg;
pub mod error;
pub mod graph;
pub mod grounding;
pub mod tools;

/// The outcome name of a model failure in a trace (a model error is the agent's failure).
pub fn outcome_of(class: crate::llm::ErrorClass) -> &'static str {
    use crate::llm::ErrorClass::*;
    match class {
        ApiInfrastructureError => "api_infrastructure_error",
        Cancelled => "cancelled",
        Configuration => "configuration_error",
        ModelError => "agent_error",
    }
}
