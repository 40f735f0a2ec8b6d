//! The Bench core: BrainBench cases, the six validation units, result files, rescoring and the aggregates the
//! Bench room and `brainlens bench` show. See `../shared/BRAINBENCH.md` for the formats and rules.

pub mod aggregate;
pub mod canon;
pub mod case;
pub mod collection;
pub mod json;
pub mod rescore;
pub mod results;
pub mod scoring;
pub mod signal_file;
