//! What drives agents over a suite: the runner (instances, deadlines, retries, resume), the parser and judge
//! roles, shards and the Slurm job array, and the parser audit. `bench` below it holds cases, scoring, results and aggregates.

pub mod error;
pub mod judge;
pub mod parser_audit;
pub mod restrike;
pub mod runner;
pub mod slurm;
