//! BrainAgent for connectomes (`../shared/AGENT.md`): tasks, the graph context and its evidence table, tools
//! (HARK, CARD, analysis functions) with argument repair, the step pipeline and its trace, baselines, batch
//! evaluation and interpretability scores.

pub mod baseline;
pub mod call;
pub mod cohort;
pub mod cohort_model;
pub mod context;
pub mod eval;
pub mod hybrid;
pub mod interpret;
pub mod ledger;
pub mod method;
pub mod paper;
pub mod prompts;
pub mod reuse;
pub mod run;
pub mod runfile;
pub mod scores;
pub mod setup;
pub mod shard;
pub mod shard_merge;
pub mod sites;
pub mod task;
pub mod tools;
pub mod trace;

pub use context::{Evidence, GraphContext};
pub use method::{CardEncoder, CardQuery, Method, ReflectionForm, Settings};
pub use run::Agent;
pub use task::Task;
pub use trace::{Decision, Outcome, OutcomeClass, Trace};
