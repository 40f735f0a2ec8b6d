//! FIF raw files behind the recording interface, written here tag by tag (the FIF layout MNE writes:
//! file id, measurement info with channel records and bad channels, raw data buffers with a skip, a split
//! continuation) and broken (a bad tag, not FIF), each refused with the file and the problem named.
//! scripts/reference/formats_reference.py checks files written by MNE's raw.save against read_raw_fif.

mod common;
use brainlens::signal::Recording;
use common::fif::{Fif, rows};
use std::path::Path;

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
    // Channel kinds from the records (FIFFV_EEG_CH, FIFFV_STIM_CH); formats_reference.py checks every kind
    // MNE writes against read_raw_fif.
    assert_eq!(rec.channels().iter().map(|c| c.kind.name()).collect::<Vec<_>>(), ["eeg", "stim"]);
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
    assert!(rec.is_discontinuous(), "a skip splits the runs");
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

/// A file with a tag directory (as MaxFilter and acquisition systems write them) reads as the same file
/// without one; a directory that points past the end is ignored and the tag chain is followed instead.
#[test]
fn a_tag_directory_reads_the_same_and_a_broken_one_falls_back_to_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let mut f = Fif::new();
    f.info("");
    f.start(102);
    f.buffer(&rows(0.0, 4));
    f.int(301, 1);
    f.buffer(&rows(10.0, 4));
    f.end(102);
    f.end(100);
    let plain = f.0.clone();
    // The directory: every tag (kind, type, size, position), appended as a FIFF_DIR tag (102, type 32).
    let mut entries = Vec::new();
    let mut pos = 0usize;
    while pos + 16 <= plain.len() {
        let w = |i: usize| i32::from_be_bytes(plain[pos + i * 4..pos + i * 4 + 4].try_into().unwrap());
        for v in [w(0), w(1), w(2), pos as i32] {
            entries.extend_from_slice(&v.to_be_bytes());
        }
        pos += 16 + w(2) as usize;
    }
    let mut with_dir = plain.clone();
    let dirpos = with_dir.len() as i32;
    for v in [102, 32, entries.len() as i32, -1] {
        with_dir.extend_from_slice(&v.to_be_bytes());
    }
    with_dir.extend_from_slice(&entries);
    with_dir[52..56].copy_from_slice(&dirpos.to_be_bytes());
    let read = |bytes: &[u8], name: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let rec = Recording::open(&p).unwrap();
        let d = rec.read(&[0, 1], 0.0, 1.0).unwrap();
        (
            rec.duration_s().unwrap(),
            d.iter().map(|c| c.values.clone()).collect::<Vec<_>>(),
            rec.annotations().unwrap().len(),
        )
    };
    let want = read(&plain, "plain_raw.fif");
    assert_eq!(want.0, 0.12);
    assert_eq!(read(&with_dir, "dir_raw.fif"), want);
    // The directory is what is read: with the file id's `next` pointing into itself, the chain is unusable (the
    // same bytes without the directory are refused), but the directory still gives the recording.
    let mut bad_chain = with_dir.clone();
    bad_chain[12..16].copy_from_slice(&1i32.to_be_bytes());
    assert_eq!(read(&bad_chain, "bad_chain_raw.fif"), want);
    // A directory closed by an entry of kind −1 (padding after the last tag) is read up to it.
    let mut closed = bad_chain.clone();
    closed.extend_from_slice(&[0xff; 16]);
    let dir_size = (entries.len() + 16) as i32;
    closed[dirpos as usize + 8..dirpos as usize + 12].copy_from_slice(&dir_size.to_be_bytes());
    assert_eq!(read(&closed, "closed_dir_raw.fif"), want);
    let mut no_dir = bad_chain.clone();
    no_dir[52..56].copy_from_slice(&(-1i32).to_be_bytes());
    let p = dir.path().join("no_dir_raw.fif");
    std::fs::write(&p, &no_dir).unwrap();
    assert!(Recording::open(&p).is_err(), "the broken chain alone is refused");
    // A directory entry past the end: ignored, the chain gives the same recording.
    let mut broken = with_dir.clone();
    let last = broken.len() - 4;
    broken[last..].copy_from_slice(&i32::MAX.to_be_bytes());
    assert_eq!(read(&broken, "broken_dir_raw.fif"), want);
}

/// Found by cargo-fuzz: a tag whose `next` is negative (other than −1, "none") was taken as a huge position
/// and overflowed; it is now refused, naming the tag.
#[test]
fn a_negative_next_pointer_is_refused_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let mut f = Fif::new();
    f.info("");
    f.start(102);
    f.buffer(&rows(0.0, 4));
    // The buffer tag's `next` field: −2.
    let at = f.0.len() - 16 - 4 * 2 * 4;
    f.0[at + 12..at + 16].copy_from_slice(&(-2i32).to_be_bytes());
    let p = dir.path().join("neg_raw.fif");
    std::fs::write(&p, &f.0).unwrap();
    let e = Recording::open(&p).unwrap_err().to_string();
    assert!(e.contains("neg_raw.fif") && e.contains("-2"), "{e}");
}

/// The tags of a file written with `next` = 0 throughout: (position, whole length).
fn tag_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 16 <= b.len() {
        let size = i32::from_be_bytes(b[pos + 8..pos + 12].try_into().unwrap()) as usize;
        out.push((pos, 16 + size));
        pos += 16 + size;
    }
    out
}

/// The same tags with those of `moved` (indices, in order) stored after the rest, as MNE's CTF conversion lays
/// a file out: the tag before them jumps forward to the first, the last jumps back to the tag after them.
/// `next` is 0 where the chain continues with the following bytes, the absolute position otherwise, and −1
/// at the end.
fn relocate(b: &[u8], moved: std::ops::RangeInclusive<usize>) -> Vec<u8> {
    let spans = tag_spans(b);
    let order: Vec<usize> = (0..spans.len()).filter(|i| !moved.contains(i)).chain(moved.clone()).collect();
    let mut at = vec![0usize; spans.len()];
    let mut pos = 0;
    for &i in &order {
        at[i] = pos;
        pos += spans[i].1;
    }
    let mut out = Vec::with_capacity(b.len());
    for &i in &order {
        let (p, n) = spans[i];
        let mut t = b[p..p + n].to_vec();
        let next = match spans.get(i + 1) {
            None => -1,
            Some(_) if at[i + 1] == at[i] + n => 0,
            Some(_) => at[i + 1] as i32,
        };
        t[12..16].copy_from_slice(&next.to_be_bytes());
        out.extend_from_slice(&t);
    }
    out
}

/// The FIF specification's `next`: an absolute position, before or after the tag. A block stored after the
/// data (reached by a forward jump, left by a backward one — a CTF recording converted by MNE has this
/// layout) reads as the plain file; a chain that loops or leaves the file is refused, naming the tag.
/// scripts/reference/formats_reference.py checks the same layout, written from a real recording, against MNE.
#[test]
fn a_block_stored_after_the_data_is_followed_there_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut f = Fif::new();
    f.info("STI 014");
    f.start(102);
    f.buffer(&rows(0.0, 4));
    f.buffer(&rows(10.0, 4));
    f.end(102);
    f.end(100);
    let plain = f.0.clone();
    let spans = tag_spans(&plain);
    // The measurement info block (tags 3 ..= 13: its start, nchan, sfreq, two channels, the bads block, its end).
    let info_start = spans
        .iter()
        .position(|&(p, _)| plain[p..p + 4] == 104i32.to_be_bytes() && plain[p + 16..p + 20] == 101i32.to_be_bytes());
    let info_end = spans
        .iter()
        .position(|&(p, _)| plain[p..p + 4] == 105i32.to_be_bytes() && plain[p + 16..p + 20] == 101i32.to_be_bytes());
    let (info_start, info_end) = (info_start.unwrap(), info_end.unwrap());
    let moved = relocate(&plain, info_start..=info_end);
    assert_ne!(moved, plain);
    let read = |bytes: &[u8], name: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        Recording::open(&p).map(|rec| {
            let d = rec.read(&[0, 1], 0.0, 1.0).unwrap();
            let names: Vec<String> = rec.channels().iter().map(|c| c.label.clone()).collect();
            (names, rec.bads().to_vec(), d.iter().map(|c| c.values.clone()).collect::<Vec<_>>())
        })
    };
    let want = read(&plain, "plain_raw.fif").unwrap();
    assert_eq!(want.0, ["EEG 001", "STI 014"]);
    assert_eq!(read(&moved, "moved_raw.fif").unwrap(), want);

    // The moved block's last tag jumps back to its first, read already: a loop.
    let physical = tag_spans(&moved);
    let last_moved = physical[physical.len() - 1];
    let into = physical[physical.len() - (info_end - info_start + 1)].0 as i32;
    let mut looped = moved.clone();
    looped[last_moved.0 + 12..last_moved.0 + 16].copy_from_slice(&into.to_be_bytes());
    let e = read(&looped, "loop_raw.fif").unwrap_err().to_string();
    assert!(e.contains("loop_raw.fif") && e.contains("loops") && e.contains(&format!("byte {into}")), "{e}");
    // … or out of the file.
    let mut out = moved.clone();
    out[last_moved.0 + 12..last_moved.0 + 16].copy_from_slice(&(moved.len() as i32 + 100).to_be_bytes());
    let e = read(&out, "out_raw.fif").unwrap_err().to_string();
    assert!(e.contains("out_raw.fif") && e.contains("past the end"), "{e}");
}

/// Found by cargo-fuzz (fif_open_read, an out-of-memory at 4.8 GB): an acquisition skip is zeros no file byte
/// backs, so a small file can span millions of seconds. It opens, pages, and a read past what one read returns
/// is refused with the file named instead of allocating it.
#[test]
fn a_skip_of_millions_of_seconds_opens_and_a_huge_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Fif::new();
    a.info("STI 014");
    a.start(102);
    a.buffer(&rows(0.0, 4));
    a.int(301, 40_000_000); // skip 40 million buffers of 4 samples
    a.buffer(&rows(100.0, 4));
    a.end(102);
    a.end(100);
    let path = dir.path().join("skip_raw.fif");
    std::fs::write(&path, &a.0).unwrap();
    assert!(a.0.len() < 4096);
    let rec = Recording::open(&path).unwrap();
    assert!((rec.duration_s().unwrap() - 1_600_000.08).abs() < 1e-6);
    let page = rec.read(&[0, 1], 0.0, 5.0).unwrap();
    assert_eq!(page[0].values.len(), 500);
    // float32 in the file: the stored numbers to float32 precision.
    assert!(page[0].values[..4].iter().zip([0.0, 1.0, 2.0, 3.0]).all(|(g, w)| (g - w).abs() < 1e-6));
    assert!(page[0].values[4..].iter().all(|&v| v == 0.0), "the skip reads as zeros");
    let err = rec.read(&[0, 1], 0.0, 1e12).unwrap_err().to_string();
    assert!(err.contains("skip_raw.fif") && err.contains("more than one read returns"), "{err}");
    // One channel of it fits.
    assert_eq!(rec.read(&[0], 0.0, 1e12).unwrap()[0].values.len(), 160_000_008);
}
