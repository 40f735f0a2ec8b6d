//! One-time re-quantisation of a Q4 GGUF to Q8_0 (candle's fast CPU kernels), written beside the original.

use crate::llm::local::error::LocalError;
use candle_core::Device;
use candle_core::quantized::{GgmlDType, QTensor, gguf_file};
use std::path::{Path, PathBuf};

/// The file to run: `path` itself unless it holds Q4_0/Q4_1 tensors, then a cached Q8_0 copy
/// (`NAME.q8_0.gguf` beside it, made once; if that folder is read-only, the original is used).
pub fn fast_copy(path: &Path) -> Result<PathBuf, LocalError> {
    let mut file = std::fs::File::open(path).map_err(|e| LocalError::from(e.to_string()))?;
    let content = gguf_file::Content::read(&mut file).map_err(|e| format!("not a readable GGUF file: {e}"))?;
    let slow = content.tensor_infos.values().any(|t| matches!(t.ggml_dtype, GgmlDType::Q4_0 | GgmlDType::Q4_1));
    if !slow {
        return Ok(path.to_path_buf());
    }
    let stem = path.file_name().map(|n| n.to_string_lossy().trim_end_matches(".gguf").to_string()).unwrap_or_default();
    let fast = path.with_file_name(format!("{stem}.q8_0.gguf"));
    if fast.is_file() {
        return Ok(fast);
    }
    match write_q8(&content, &mut file, &fast) {
        Ok(()) => Ok(fast),
        Err(_) => Ok(path.to_path_buf()),
    }
}

fn write_q8(content: &gguf_file::Content, file: &mut std::fs::File, out: &Path) -> Result<(), LocalError> {
    let err = |e: candle_core::Error| e.to_string();
    let mut names: Vec<&String> = content.tensor_infos.keys().collect();
    names.sort();
    let mut tensors: Vec<(String, QTensor)> = Vec::with_capacity(names.len());
    for name in names {
        let q = content.tensor(file, name, &Device::Cpu).map_err(err)?;
        let q = if matches!(q.dtype(), GgmlDType::Q4_0 | GgmlDType::Q4_1)
            && q.shape().dims().last().is_some_and(|d| d % 32 == 0)
        {
            let dense = q.dequantize(&Device::Cpu).map_err(err)?;
            QTensor::quantize(&dense, GgmlDType::Q8_0).map_err(err)?
        } else {
            q
        };
        tensors.push((name.clone(), q));
    }
    let mut metadata: Vec<(&str, gguf_file::Value)> =
        content.metadata.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    for (k, v) in metadata.iter_mut() {
        if *k == "general.file_type" {
            *v = gguf_file::Value::U32(7); // MOSTLY_Q8_0
        }
    }
    metadata.sort_by(|a, b| a.0.cmp(b.0));
    let tmp = out.with_extension("gguf.partial");
    let mut w = std::fs::File::create(&tmp).map_err(|e| LocalError::from(e.to_string()))?;
    let meta_refs: Vec<(&str, &gguf_file::Value)> = metadata.iter().map(|(k, v)| (*k, v)).collect();
    let tensor_refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(k, v)| (k.as_str(), v)).collect();
    gguf_file::write(&mut w, &meta_refs, &tensor_refs).map_err(err)?;
    drop(w);
    std::fs::rename(&tmp, out).map_err(|e| LocalError::from(e.to_string()))
}
