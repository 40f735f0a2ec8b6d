//! SHA-256 as lowercase hex, the one form every digest in BrainLens takes (suite manifests, replay keys,
//! embedding cache keys, artifact manifests, the CodeAct environment lock).

use sha2::{Digest, Sha256};
use std::io::Read;

/// A digest fed in pieces.
#[derive(Default)]
pub struct Sha256Hex(Sha256);

impl Sha256Hex {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub fn hex(self) -> String {
        self.0.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut h = Sha256Hex::new();
    h.update(bytes);
    h.hex()
}

/// The digest of everything `r` yields, read in 1 MiB pieces.
pub fn sha256_reader(mut r: impl Read) -> std::io::Result<String> {
    let mut h = Sha256Hex::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            return Ok(h.hex());
        }
        h.update(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        // FIPS 180-2 test vector and the empty string.
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_reader(&b"abc"[..]).unwrap(), sha256_hex(b"abc"));
    }
}
