//! A GGUF file's header, key/value section and tensor table, checked before llama.cpp opens it. llama.cpp
//! aborts the whole process (not an error return) on some malformed tables: its reader accepts a tensor whose
//! element count is exactly `INT64_MAX / ne[i]` while `ggml_new_tensor` asserts it is less (found by cargo-fuzz,
//! `gguf_metadata`). Every count and length here is checked against the bytes left, nothing is allocated from
//! a count, and a tensor must have 1–4 dimensions, none negative, an element count ggml accepts and a known
//! type. Reads the file sequentially (the vocabulary strings are skipped, not kept).

use std::io::{BufReader, Read};
use std::path::Path;

/// ggml's GGML_MAX_DIMS and GGML_TYPE_COUNT (llama.cpp as built here).
const MAX_DIMS: u32 = 4;
const TYPE_COUNT: u32 = 40;
/// GGML_MAX_NAME: tensor names are at most this long (with the terminating NUL).
const MAX_NAME: u64 = 64;

struct Reader {
    r: BufReader<std::fs::File>,
    left: u64,
}

impl Reader {
    fn bytes<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        if self.left < N as u64 {
            return Err(format!("the file ends inside {what}"));
        }
        let mut b = [0u8; N];
        self.r.read_exact(&mut b).map_err(|e| format!("{what}: {e}"))?;
        self.left -= N as u64;
        Ok(b)
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        self.bytes::<4>(what).map(u32::from_le_bytes)
    }
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        self.bytes::<8>(what).map(u64::from_le_bytes)
    }
    fn skip(&mut self, n: u64, what: &str) -> Result<(), String> {
        if n > self.left {
            return Err(format!("{what} claims {n} bytes; {} are left", self.left));
        }
        // Within the buffer when it can be (a vocabulary is 10⁵ short strings): no system call per string.
        self.r.seek_relative(n as i64).map_err(|e| format!("{what}: {e}"))?;
        self.left -= n;
        Ok(())
    }
    /// A GGUF string: its length, then that many bytes (skipped).
    fn skip_string(&mut self, what: &str) -> Result<u64, String> {
        let n = self.u64(what)?;
        self.skip(n, what)?;
        Ok(n)
    }
    /// One value of GGUF type `ty` (arrays of any type, strings included).
    fn skip_value(&mut self, ty: u32, what: &str, depth: u32) -> Result<(), String> {
        match ty {
            0 | 1 | 7 => self.skip(1, what),
            2 | 3 => self.skip(2, what),
            4..=6 => self.skip(4, what),
            10..=12 => self.skip(8, what),
            8 => self.skip_string(what).map(|_| ()),
            9 if depth == 0 => {
                let inner = self.u32(what)?;
                let n = self.u64(what)?;
                match inner {
                    0 | 1 | 7 => self.skip(n, what),
                    2 | 3 => self.skip(n.checked_mul(2).ok_or(format!("{what}: {n} elements"))?, what),
                    4..=6 => self.skip(n.checked_mul(4).ok_or(format!("{what}: {n} elements"))?, what),
                    10..=12 => self.skip(n.checked_mul(8).ok_or(format!("{what}: {n} elements"))?, what),
                    8 => {
                        // Each string takes 8 bytes at least: a count past that cannot be in the file.
                        if n > self.left / 8 {
                            return Err(format!("{what}: {n} strings cannot fit in {} bytes", self.left));
                        }
                        (0..n).try_for_each(|_| self.skip_string(what).map(|_| ()))
                    }
                    other => Err(format!("{what}: an array of unknown type {other}")),
                }
            }
            other => Err(format!("{what}: unknown value type {other}")),
        }
    }
}

/// Checks `path`'s GGUF structure; the error says what is wrong where.
pub fn check(path: &Path) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    let mut r = Reader { r: BufReader::with_capacity(1 << 16, file), left: len };
    if &r.bytes::<4>("the magic")? != b"GGUF" {
        return Err("invalid magic: not a GGUF file".into());
    }
    let version = r.u32("the version")?;
    if !(2..=3).contains(&version) {
        return Err(format!("GGUF version {version} (2 or 3 expected)"));
    }
    let tensors = r.u64("the tensor count")?;
    let kvs = r.u64("the key/value count")?;
    // A key/value pair takes at least 12 bytes, a tensor record at least 24.
    if kvs > len / 12 || tensors > len / 24 {
        return Err(format!("{tensors} tensors and {kvs} key/value pairs cannot fit in {len} bytes"));
    }
    for i in 0..kvs {
        let what = format!("key/value pair {i}");
        r.skip_string(&what)?;
        let ty = r.u32(&what)?;
        r.skip_value(ty, &what, 0)?;
    }
    for i in 0..tensors {
        let what = format!("tensor {i}");
        let name = r.skip_string(&what)?;
        if name >= MAX_NAME {
            return Err(format!("{what}: a name of {name} bytes (at most {} allowed)", MAX_NAME - 1));
        }
        let dims = r.u32(&what)?;
        if !(1..=MAX_DIMS).contains(&dims) {
            return Err(format!("{what}: {dims} dimensions (1 to {MAX_DIMS} allowed)"));
        }
        let mut ne = [1i64; MAX_DIMS as usize];
        for d in ne.iter_mut().take(dims as usize) {
            *d = r.u64(&what)? as i64;
            if *d < 0 {
                return Err(format!("{what}: a dimension of {d} elements"));
            }
        }
        // ggml_new_tensor's own condition (stricter at the boundary than the GGUF reader's).
        let mut count = ne[0];
        for &n in &ne[1..] {
            if n > 1 {
                if i64::MAX / n <= count {
                    return Err(format!("{what}: {ne:?} elements overflow a 64-bit count"));
                }
                count *= n;
            }
        }
        let ty = r.u32(&what)?;
        if ty >= TYPE_COUNT {
            return Err(format!("{what}: unknown tensor type {ty}"));
        }
        r.u64(&what)?; // offset: llama.cpp checks it against the data section
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gguf(tensors: &[(&str, &[i64], u32)]) -> Vec<u8> {
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend((tensors.len() as u64).to_le_bytes());
        b.extend(1u64.to_le_bytes());
        // general.architecture = "llama"
        b.extend((20u64).to_le_bytes());
        b.extend(b"general.architecture");
        b.extend(8u32.to_le_bytes());
        b.extend(5u64.to_le_bytes());
        b.extend(b"llama");
        for (name, ne, ty) in tensors {
            b.extend((name.len() as u64).to_le_bytes());
            b.extend(name.as_bytes());
            b.extend((ne.len() as u32).to_le_bytes());
            for n in *ne {
                b.extend(n.to_le_bytes());
            }
            b.extend(ty.to_le_bytes());
            b.extend(0u64.to_le_bytes());
        }
        b
    }

    /// The input cargo-fuzz found (99 bytes) — one tensor whose element count is exactly at ggml's boundary —
    /// is refused here instead of aborting the process inside llama.cpp; a well-formed table passes.
    #[test]
    fn tables_llama_cpp_would_abort_on_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.gguf");
        let check_bytes = |b: &[u8]| {
            std::fs::write(&p, b).unwrap();
            check(&p)
        };
        assert_eq!(check_bytes(&gguf(&[("w", &[4096, 4096], 0)])), Ok(()));
        let found: [u8; 98] = [
            71, 71, 85, 70, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0,
            0, 0, 0, 169, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 41, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 85,
        ];
        let e = check_bytes(&found).unwrap_err();
        assert!(e.starts_with("tensor 0"), "{e}");
        let e = check_bytes(&gguf(&[("w", &[1 << 32, 1 << 31], 0)])).unwrap_err();
        assert!(e.contains("overflow"), "{e}");
        let e = check_bytes(&gguf(&[("w", &[1, 1, 1, 1, 1], 0)])).unwrap_err();
        assert!(e.contains("5 dimensions"), "{e}");
        let e = check_bytes(&gguf(&[("w", &[4], 99)])).unwrap_err();
        assert!(e.contains("unknown tensor type 99"), "{e}");
        let mut cut = gguf(&[("w", &[4], 0)]);
        cut.truncate(40);
        let e = check_bytes(&cut).unwrap_err();
        assert!(e.contains("8 are left"), "{e}");
    }
}
