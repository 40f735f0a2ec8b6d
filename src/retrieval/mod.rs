//! Retrieval for the BrainAgent method: text similarity (BM25, MiniLM sentence embeddings, hybrid), cached on
//! disk by model and content; graph embeddings; the case memory and CARD. Nothing here imports `ui`.

pub mod aliases;
pub mod case_review;
pub mod cases;
pub mod edges;
pub mod error;
pub mod gfm;
pub mod graph;
pub mod kb_build;
pub mod knowledge;
pub mod text;
