//! Little-endian fields of a binary header held in memory (Neuroscan CNT, GDF): numbers at byte offsets and
//! NUL-terminated Latin-1 text. Offsets are the caller's, within the slice.

/// A header's bytes.
pub struct Le<'a>(pub &'a [u8]);

impl Le<'_> {
    fn bytes<const N: usize>(&self, at: usize) -> [u8; N] {
        self.0[at..at + N].try_into().expect("the caller's offsets lie within the header")
    }
    pub fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes(self.bytes(at))
    }
    pub fn i16(&self, at: usize) -> i16 {
        i16::from_le_bytes(self.bytes(at))
    }
    pub fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.bytes(at))
    }
    pub fn i32(&self, at: usize) -> i32 {
        i32::from_le_bytes(self.bytes(at))
    }
    pub fn i64(&self, at: usize) -> i64 {
        i64::from_le_bytes(self.bytes(at))
    }
    pub fn f32(&self, at: usize) -> f32 {
        f32::from_le_bytes(self.bytes(at))
    }
    pub fn f64(&self, at: usize) -> f64 {
        f64::from_le_bytes(self.bytes(at))
    }
    /// The `len`-byte text field at `at`, up to its first NUL, as Latin-1 (untrimmed).
    pub fn text(&self, at: usize, len: usize) -> String {
        let f = &self.0[at..at + len];
        let end = f.iter().position(|&b| b == 0).unwrap_or(len);
        f[..end].iter().map(|&b| b as char).collect()
    }
}
