//! Retrieval for the BrainAgent method: text similarity (BM25, MiniLM sentence embeddings, hybrid), cached on
//! disk by model and content. Nothing here imports `ui`.

pub mod cache;
pub mod text;
