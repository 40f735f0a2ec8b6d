//! The floor every layer may use: small helpers with no knowledge of brains, models or benchmarks.

pub mod hash;
