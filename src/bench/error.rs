//! What can go wrong in the benchmark layer below the runner: generating a suite (a data file, a template),
//! reading a signal file a case names, or a parameter.

crate::util::error::module_error! {
    /// A failure below the runner: generating a suite, reading a signal file a case names, or a parameter.
    BenchError {
        Signal: crate::signal::SignalError,
        Network: crate::network::error::NetworkError,
        Edf: crate::signal::edf::EdfError,
    }
}
