//! BrainLens core: recordings (`signal`), and the GUI (`ui`) and CLI (`cli`) faces over it.
//! The core never imports `ui`; see docs/architecture.md.

pub mod agent;
pub mod bench;
pub mod build_info;
pub mod cli;
pub mod harness;
pub mod llm;
pub mod network;
pub mod retrieval;
pub mod sandbox;
pub mod signal;
#[cfg(feature = "gui")]
pub mod ui;
pub mod util;
