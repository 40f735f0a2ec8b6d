//! A one-time Q8_0 copy of a Q4_0/Q4_1 GGUF, made with llama.cpp's own quantizer and kept beside the original
//! (`NAME.q8_0.gguf`). Measured here (2 cores, llama.cpp's kernels): SmolLM2-135M Q4_1 prefills 236 and decodes
//! 71 tokens/s, its Q8_0 copy 362 and 81 — it pays; Qwen2.5-Coder-1.5B Q4_K_M prefills 71 and decodes 22, a Q8_0
//! copy 50 and 11 — it does not, so K-quants and every other type run as they are.

use super::engine::Engine;
use super::error::LocalError;
use crate::llm::catalogue::q8_copy_path as copy_path;
use std::ffi::CString;
use std::path::{Path, PathBuf};

/// llama.cpp's `general.file_type` of mostly-Q4_0 and mostly-Q4_1 files.
const MOSTLY_Q4_0: u32 = 2;
const MOSTLY_Q4_1: u32 = 3;

/// The file to run: `path` itself unless it is mostly Q4_0/Q4_1, then its Q8_0 copy (made now if missing; if
/// it cannot be written — a read-only folder — the original runs).
pub fn fast_copy(path: &Path) -> Result<PathBuf, LocalError> {
    // A copy made before is used as it is: the file's type is read (a vocabulary-only load) only when none is.
    let copy = copy_path(path);
    if std::fs::metadata(&copy).is_ok_and(|m| m.len() > 0) {
        return Ok(copy);
    }
    let vocab_only = Engine::load_model(path, true)?;
    let ftype = vocab_only.meta_val_str("general.file_type").ok().and_then(|v| v.trim().parse::<u32>().ok());
    drop(vocab_only);
    if !matches!(ftype, Some(MOSTLY_Q4_0 | MOSTLY_Q4_1)) {
        return Ok(path.to_path_buf());
    }
    let partial = copy.with_extension("gguf.partial");
    let (Some(input), Some(output)) =
        (path.to_str().and_then(|p| CString::new(p).ok()), partial.to_str().and_then(|p| CString::new(p).ok()))
    else {
        return Ok(path.to_path_buf());
    };
    // SAFETY: plain C calls with valid NUL-terminated paths; the parameters are llama.cpp's defaults with the
    // target type set.
    let status = unsafe {
        let mut params = llama_cpp_sys_2::llama_model_quantize_default_params();
        params.ftype = llama_cpp_sys_2::LLAMA_FTYPE_MOSTLY_Q8_0;
        params.allow_requantize = true;
        params.nthread = super::engine::threads();
        llama_cpp_sys_2::llama_model_quantize(input.as_ptr(), output.as_ptr(), &params)
    };
    if status == 0 && std::fs::rename(&partial, &copy).is_ok() {
        Ok(copy)
    } else {
        let _ = std::fs::remove_file(&partial);
        Ok(path.to_path_buf())
    }
}
