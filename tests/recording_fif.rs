//! FIF raw files behind the recording interface, written here tag by tag (the FIF layout MNE writes:
//! file id, measurement info with channel records and bad channels, raw data buffers with a skip, a split
//! continuation) and broken (a bad tag, not FIF), each refused with the file and the problem named.
//! scripts/reference/formats_reference.py checks files written by MNE's raw.save against read_raw_fif.

use brainlens::signal::Recording;
use std::path::Path;

/// Tags in FIF's big-endian layout; `next` is always "the following tag".
struct Fif(Vec<u8>);

impl Fif {
    fn new() -> Fif {
        let mut f = Fif(Vec::new());
        f.tag(100, 31, &[0u8; 20]); // file id
        f.int(101, -1); // no directory
        f
    }
    fn tag(&mut self, kind: i32, ty: i32, data: &[u8]) {
        for v in [kind, ty, data.len() as i32, 0] {
            self.0.extend_from_slice(&v.to_be_bytes());
        }
        self.0.extend_from_slice(data);
    }
    fn int(&mut self, kind: i32, v: i32) {
        self.tag(kind, 3, &v.to_be_bytes());
    }
    fn start(&mut self, block: i32) {
        self.int(104, block);
    }
    fn end(&mut self, block: i32) {
        self.int(105, block);
    }
    fn ch(&mut self, name: &str, cal: f32, unit: i32) {
        let mut b = Vec::new();
        for v in [1i32, 1, 2] {
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
    fn buffer(&mut self, rows: &[[f32; 2]]) {
        let b: Vec<u8> = rows.iter().flatten().flat_map(|v| v.to_be_bytes()).collect();
        self.tag(300, 4, &b);
    }
    fn info(&mut self, bads: &str) {
        self.start(100);
        self.start(101);
        self.int(200, 2);
        self.tag(201, 4, &100.0f32.to_be_bytes());
        self.ch("EEG 001", 1e-6, 107);
        self.ch("STI 014", 1.0, 0);
        self.start(359);
        self.tag(3507, 10, bads.as_bytes());
        self.end(359);
        self.end(101);
    }
}

fn rows(from: f32, n: usize) -> Vec<[f32; 2]> {
    (0..n).map(|i| [from + i as f32, 5.0]).collect()
}

#[test]
fn buffers_skips_bads_and_split_files_read_as_mne_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Fif::new();
    a.info("STI 014");
    a.start(102);
    a.int(208, 300); // first sample
    a.buffer(&rows(0.0, 4));
    a.int(301, 2); // skip two buffers
    a.buffer(&rows(100.0, 4));
    a.end(102);
    a.start(118);
    a.int(115, 2); // next file
    a.tag(118, 10, b"t_raw-1.fif");
    a.end(118);
    a.end(100);
    std::fs::write(dir.path().join("t_raw.fif"), &a.0).unwrap();
    let mut b = Fif::new();
    b.info("STI 014");
    b.start(102);
    b.buffer(&rows(200.0, 4));
    b.end(102);
    b.end(100);
    std::fs::write(dir.path().join("t_raw-1.fif"), &b.0).unwrap();

    let rec = Recording::open(&dir.path().join("t_raw.fif")).unwrap();
    assert_eq!(rec.format_name(), "FIF");
    let ch: Vec<(&str, &str)> =
        rec.channels().iter().map(|c| (c.label.as_str(), c.physical_dimension.as_str())).collect();
    assert_eq!(ch, [("EEG 001", "µV"), ("STI 014", "")]);
    assert_eq!(rec.bads(), ["STI 014"]);
    // 4 samples, 8 skipped (zeros, as MNE), 4, then 4 from the split part: 20 at 100 Hz.
    assert!((rec.duration_s().unwrap() - 0.2).abs() < 1e-12);
    let d = rec.read(&[0], 0.0, 1.0).unwrap().remove(0);
    let mut want: Vec<f64> = (0..4).map(f64::from).collect();
    want.extend([0.0; 8]);
    want.extend((100..104).map(f64::from));
    want.extend((200..204).map(f64::from));
    // Volts × a 1e-6 cal (float32 in the file) shown in µV: the stored numbers, to float32 precision.
    for (g, w) in d.values.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-7 * w.abs().max(1.0), "{g} vs {w}");
    }
    assert_eq!(d.values.len(), 20);
    assert_eq!(d.segments.iter().map(|s| s.n_samples).collect::<Vec<_>>(), [4, 8, 8]);
    let a = rec.annotations().unwrap();
    assert_eq!((a[0].text.as_str(), a[0].onset_s, a[0].duration_s), ("BAD_ACQ_SKIP", 0.04, Some(0.08)));
}

#[test]
fn broken_fif_files_name_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad_raw.fif");
    let mut f = Fif::new();
    f.info("");
    f.start(102);
    f.buffer(&rows(0.0, 4));
    let at = f.0.len();
    f.buffer(&rows(0.0, 4));
    // The second buffer's size field claims far more than the file holds.
    f.0[at + 8..at + 12].copy_from_slice(&1_000_000i32.to_be_bytes());
    std::fs::write(&p, &f.0).unwrap();
    let e = Recording::open(&p).unwrap_err().to_string();
    assert!(e.contains("bad_raw.fif") && e.contains(&format!("header byte {at}")) && e.contains("past the end"), "{e}");
    std::fs::write(&p, b"certainly not a FIF file, just some text").unwrap();
    let e = Recording::open(&p).unwrap_err().to_string();
    assert!(e.contains("bad_raw.fif") && e.contains("not a FIF file"), "{e}");
    let mut f = Fif::new();
    f.info("");
    std::fs::write(&p, &f.0).unwrap();
    let e = Recording::open(Path::new(&p)).unwrap_err().to_string();
    assert!(e.contains("no raw data buffers"), "{e}");
}
