//! What can go wrong in an agent run: a task or trace file (named), a model call, a tool, the sandbox, the
//! network or recording it reads, retrieval, or a parameter.

crate::util::error::module_error! {
    /// An agent run's failure.
    AgentError {
        Llm: crate::llm::LlmError,
        Network: crate::network::error::NetworkError,
        Signal: crate::signal::SignalError,
        Retrieval: crate::retrieval::error::RetrievalError,
        Sandbox: crate::sandbox::error::SandboxError,
    }
}
