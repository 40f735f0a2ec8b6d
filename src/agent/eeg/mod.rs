//! BrainAgent for EEG (BrainBench's BrainAgent paradigm): a supervisor routes a task to SleepAgent,
//! NeurocogAgent or PhysiolAgent (common toolset + domain tools); each plans over a hierarchical shared state
//! and runs the longest executable segment of its plan per round; the report appends the measured results.

pub mod code;
pub mod run;
pub mod state;
pub mod tools;
pub mod trace;

pub use code::{CodeRule, CodeSteps};
pub use run::{Outcome, ReportMode, Settings, run, run_with};
pub use trace::EegTrace;
