//! FIF files written tag by tag for the reader's tests (the layout MNE writes).

/// Tags in FIF's big-endian layout; `next` is always "the following tag".
pub struct Fif(pub Vec<u8>);

impl Fif {
    pub fn new() -> Fif {
        let mut f = Fif(Vec::new());
        f.tag(100, 31, &[0u8; 20]); // file id
        f.int(101, -1); // no directory
        f
    }
    pub fn tag(&mut self, kind: i32, ty: i32, data: &[u8]) {
        for v in [kind, ty, data.len() as i32, 0] {
            self.0.extend_from_slice(&v.to_be_bytes());
        }
        self.0.extend_from_slice(data);
    }
    pub fn int(&mut self, kind: i32, v: i32) {
        self.tag(kind, 3, &v.to_be_bytes());
    }
    pub fn start(&mut self, block: i32) {
        self.int(104, block);
    }
    pub fn end(&mut self, block: i32) {
        self.int(105, block);
    }
    /// A channel record: scan no. 1, logical no. 1, `kind` (2 EEG, 3 stim, …), range 1, `cal`, `unit`.
    pub fn ch(&mut self, name: &str, kind: i32, cal: f32, unit: i32) {
        let mut b = Vec::new();
        for v in [1i32, 1, kind] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        b.extend_from_slice(&1.0f32.to_be_bytes()); // range
        b.extend_from_slice(&cal.to_be_bytes());
        b.extend_from_slice(&1i32.to_be_bytes()); // coil
        b.extend_from_slice(&[0u8; 48]); // loc
        b.extend_from_slice(&unit.to_be_bytes());
        b.extend_from_slice(&0i32.to_be_bytes());
        let mut n = [0u8; 16];
        n[..name.len()].copy_from_slice(name.as_bytes());
        b.extend_from_slice(&n);
        self.tag(203, 30, &b);
    }
    /// A float32 buffer of rows (samples) of two channels.
    pub fn buffer(&mut self, rows: &[[f32; 2]]) {
        let b: Vec<u8> = rows.iter().flatten().flat_map(|v| v.to_be_bytes()).collect();
        self.tag(300, 4, &b);
    }
    pub fn info(&mut self, bads: &str) {
        self.start(100);
        self.start(101);
        self.int(200, 2);
        self.tag(201, 4, &100.0f32.to_be_bytes());
        self.ch("EEG 001", 2, 1e-6, 107);
        self.ch("STI 014", 3, 1.0, 0);
        self.start(359);
        self.tag(3507, 10, bads.as_bytes());
        self.end(359);
        self.end(101);
    }
}

pub fn rows(from: f32, n: usize) -> Vec<[f32; 2]> {
    (0..n).map(|i| [from + i as f32, 5.0]).collect()
}
