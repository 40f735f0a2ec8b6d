//! Embeddings cached on disk, keyed by model name and the texts' content (SHA-256), so a knowledge base or
//! case memory is embedded once: `<cache>/embeddings/<key>.f32` = u32 count, u32 dim, then f32 LE values.

use super::MiniLm;
use crate::retrieval::error::{Result, RetrievalError};
use std::path::PathBuf;

pub fn key(model: &str, texts: &[String]) -> String {
    let mut h = crate::util::hash::Sha256Hex::new();
    h.update(model.as_bytes());
    for t in texts {
        h.update(&[0u8]);
        h.update(t.as_bytes());
    }
    h.hex()
}

fn path(key: &str) -> PathBuf {
    crate::util::paths::cache_dir().join("embeddings").join(format!("{key}.f32"))
}

fn read(path: &PathBuf, n: usize) -> Option<Vec<Vec<f32>>> {
    let bytes = std::fs::read(path).ok()?;
    let count = u32::from_le_bytes(bytes.get(0..4)?.try_into().ok()?) as usize;
    let dim = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?) as usize;
    if count != n || bytes.len() != 8 + count * dim * 4 {
        return None;
    }
    let values: Vec<f32> = bytes[8..].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Some(values.chunks(dim.max(1)).map(|c| c.to_vec()).collect())
}

/// Embeddings of `texts` with `model`, from the cache when present (a damaged cache file is recomputed).
pub fn embeddings(model: &MiniLm, texts: &[String]) -> Result<Vec<Vec<f32>>, RetrievalError> {
    let file = path(&key(&model.name, texts));
    if let Some(v) = read(&file, texts.len()) {
        return Ok(v);
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = model.embed(&refs)?;
    let dim = vectors.first().map_or(0, |v| v.len());
    let mut bytes = Vec::with_capacity(8 + vectors.len() * dim * 4);
    bytes.extend((vectors.len() as u32).to_le_bytes());
    bytes.extend((dim as u32).to_le_bytes());
    for v in &vectors {
        for x in v {
            bytes.extend(x.to_le_bytes());
        }
    }
    if let Some(dir) = file.parent() {
        let tmp = file.with_extension("partial");
        // The cache is an optimisation: failing to write it is not an error.
        let _ = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&tmp, &bytes))
            .and_then(|_| std::fs::rename(&tmp, &file));
    }
    Ok(vectors)
}
