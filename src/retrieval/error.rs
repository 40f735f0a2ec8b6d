//! What can go wrong in retrieval: a knowledge base, case memory, label table or graph-encoder file that
//! cannot be read (named, with the line or key), a model call, a network, or a parameter.

crate::util::error::module_error! {
    /// A retrieval failure (knowledge base, case memory, labels, graph encoder).
    RetrievalError {
        Llm: crate::llm::LlmError,
        Network: crate::network::error::NetworkError,
        Local: crate::llm::local::LocalError,
        Tensor: candle_core::Error,
        Signal: crate::signal::SignalError,
    }
}
