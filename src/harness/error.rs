//! What can go wrong driving agents over a suite: the case set, the result file (named), the agents, the
//! sandbox, a model, or a run option.

crate::util::error::module_error! {
    /// A failure driving agents over a suite.
    HarnessError {
        Agent: crate::agent::error::AgentError,
        Llm: crate::llm::LlmError,
        Sandbox: crate::sandbox::error::SandboxError,
        Slurm: crate::harness::slurm::SlurmError,
        Case: crate::bench::case::CaseError,
        Results: crate::bench::results::ResultError,
    }
}
