//! Language models behind one trait: an OpenAI-compatible HTTP client (`openai`), an in-process GGUF model
//! with schema-constrained decoding (`local`), a record/replay wrapper (`replay`), and a loopback
//! OpenAI-compatible server over the local model (`server`), and the catalogue of local models with their
//! checked download (`catalogue`). Nothing here imports `ui`.
//!
//! A model's answer is text the model wrote: callers must never present it as a measurement.

pub mod catalogue;
pub mod config;
pub mod error;
pub mod local;
pub mod openai;
mod provider;
pub mod replay;
pub mod reply_json;
pub mod schema;
pub mod server;
pub mod tools;
pub mod types;

pub use error::{ErrorClass, LlmError};
pub use reply_json::extract_json;
pub use types::{ChatModel, ChatRequest, ChatResponse, EnumChoice, Message, Repetition, ResponseFormat, Role, Usage};
