//! FIF raw files (MNE's and Elekta/MEGIN's format), read lazily as MNE's `read_raw_fif` reads them: the tag
//! chain (16-byte big-endian headers: kind, type, size, next) with its blocks; from the measurement info the
//! channel count, rate and channel records (name, kind, range, cal, unit) and the bad channels; the raw data
//! block's first sample, data buffers (int16, int32, float32, float64) and skips (zeros, annotated
//! `BAD_ACQ_SKIP` and a run boundary each side, as MNE); MNE's annotations block; split files (`-1.fif`, …,
//! named by a "next file" reference) appended in order. Values are range × cal × stored, shown in µV (volts),
//! fT (tesla) or fT/cm (T/m); other units as stored.

use super::channel::Channel;
use super::continuous::Continuous;
use super::edf::{Annotation, EdfError, Repair};
use super::matrix::{Buffer, Buffered, Dtype, Matrix, open_data};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const FILE_ID: i32 = 100;
const BLOCK_START: i32 = 104;
const BLOCK_END: i32 = 105;
const NCHAN: i32 = 200;
const SFREQ: i32 = 201;
const CH_INFO: i32 = 203;
const COMMENT: i32 = 206;
const FIRST_SAMPLE: i32 = 208;
const DATA_BUFFER: i32 = 300;
const DATA_SKIP: i32 = 301;
const REF_ROLE: i32 = 115;
const REF_FILE_NAME: i32 = 118;
const MNE_CH_NAME_LIST: i32 = 3507;
const MNE_BASELINE_MIN: i32 = 3568;
const MNE_BASELINE_MAX: i32 = 3569;

const B_MEAS_INFO: i32 = 101;
const B_RAW: [i32; 3] = [102, 112, 119];
const B_REF: i32 = 118;
const B_BAD_CHANNELS: i32 = 359;
const B_ANNOTATIONS: i32 = 3810;

/// The most tags one file may hold (a 500 MB file of one-second buffers has about a thousand).
const MAX_TAGS: usize = 10_000_000;

fn err(path: &Path, field: &str, problem: impl Into<String>) -> EdfError {
    EdfError::file(path, field, problem)
}

/// A tag header and the blocks it sits in.
#[derive(Debug, Clone)]
struct Tag {
    kind: i32,
    ty: u32,
    size: usize,
    pos: u64,
    /// Enclosing block kinds, outermost first.
    blocks: Vec<i32>,
}

impl Tag {
    fn within(&self, block: i32) -> bool {
        self.blocks.contains(&block)
    }
}

/// Every tag of `file` with the block nesting: from the tag directory the file points to (one read), or, when
/// it has none or it is unusable, by following the `next` chain (as MNE does).
fn tags(path: &Path, file: &File, len: u64) -> Result<Vec<Tag>, EdfError> {
    match directory(path, file, len)? {
        Some(t) => Ok(t),
        None => chain(path, file, len),
    }
}

/// The tags listed by the directory (FIFF_DIR_POINTER, the second tag, → a tag of 16-byte entries: kind, type,
/// size, position), when the file has a usable one.
fn directory(path: &Path, file: &File, len: u64) -> Result<Option<Vec<Tag>>, EdfError> {
    // The file id tag (16 + 20 bytes), then the directory pointer tag (kind 101, one int): 56 bytes.
    let mut head = [0u8; 56];
    if len < 56 || file.read_exact_at(&mut head, 0).is_err() {
        return Ok(None);
    }
    let word = |i: usize| i32::from_be_bytes(head[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
    if word(0) != FILE_ID || word(2) != 20 || word(9) != 101 || word(11) != 4 {
        return Ok(None);
    }
    let dirpos = word(13);
    if dirpos <= 0 || dirpos as u64 + 16 > len {
        return Ok(None);
    }
    let mut dh = [0u8; 16];
    file.read_exact_at(&mut dh, dirpos as u64)
        .map_err(|e| EdfError::at(path, dirpos as u64, "directory", e.to_string()))?;
    let size = i32::from_be_bytes(dh[8..12].try_into().expect("4 bytes"));
    if size <= 0 || size % 16 != 0 || dirpos as u64 + 16 + size as u64 > len || size as usize / 16 > MAX_TAGS {
        return Ok(None);
    }
    let mut entries = vec![0u8; size as usize];
    file.read_exact_at(&mut entries, dirpos as u64 + 16)
        .map_err(|e| EdfError::at(path, dirpos as u64, "directory", e.to_string()))?;
    let mut out = Vec::with_capacity(entries.len() / 16);
    let mut blocks = Vec::new();
    for e in entries.chunks_exact(16) {
        let w = |i: usize| i32::from_be_bytes(e[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        let (kind, ty, size, pos) = (w(0), w(1) as u32, w(2), w(3));
        // An entry of kind −1 closes the list (writers that size the directory ahead pad it so).
        if kind == -1 {
            break;
        }
        if size < 0 || pos < 0 || pos as u64 + 16 + size as u64 > len {
            return Ok(None);
        }
        let tag = Tag { kind, ty, size: size as usize, pos: pos as u64, blocks: blocks.clone() };
        match kind {
            BLOCK_START => blocks.push(int(path, file, &tag)?),
            BLOCK_END => {
                blocks.pop();
            }
            _ => {}
        }
        out.push(tag);
    }
    Ok((out.first().map(|t| t.kind) == Some(FILE_ID)).then_some(out))
}

/// Every tag, following the `next` chain from the start as the FIF specification defines it: `next` is 0 for
/// the bytes that follow the tag, −1 for the end, and otherwise the absolute position of the next tag, before
/// or after this one (files converted from CTF keep a block after the data, reached by a forward jump and left
/// by a backward one). A chain that returns to a tag it has read, or jumps out of the file, is refused.
fn chain(path: &Path, file: &File, len: u64) -> Result<Vec<Tag>, EdfError> {
    let mut out = Vec::new();
    // Positions read so far, checked only when the chain jumps (a run of following tags only moves forward).
    let mut seen = std::collections::HashSet::new();
    let mut blocks = Vec::new();
    let mut pos = 0u64;
    let mut head = [0u8; 16];
    let mut prefetched = 0u64;
    loop {
        // A truncated last tag: MNE warns and stops there too.
        if pos + 16 > len {
            break;
        }
        file.read_exact_at(&mut head, pos).map_err(|e| err(path, "tag", format!("at byte {pos}: {e}")))?;
        let word = |i: usize| i32::from_be_bytes(head[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        let (kind, ty, size, next) = (word(0), word(1) as u32, word(2), word(3));
        if out.is_empty() && (kind != FILE_ID || size != 20) {
            return Err(EdfError::at(path, 0, "file id tag", "missing: not a FIF file"));
        }
        if size < 0 || pos + 16 + size as u64 > len {
            return Err(EdfError::at(
                path,
                pos,
                "tag",
                format!("kind {kind} claims {size} bytes, past the end of the file ({len} bytes)"),
            ));
        }
        let tag = Tag { kind, ty, size: size as usize, pos, blocks: blocks.clone() };
        if kind == BLOCK_START || kind == BLOCK_END {
            let b = int(path, file, &tag)?;
            if kind == BLOCK_START {
                blocks.push(b);
            } else {
                blocks.pop();
            }
        }
        out.push(tag);
        seen.insert(pos);
        if out.len() > MAX_TAGS {
            return Err(err(path, "tag", format!("more than {MAX_TAGS} tags")));
        }
        if next == 0 && size as u64 >= PREFETCH_MIN_TAG {
            prefetched = prefetch_headers(file, pos, 16 + size as u64, prefetched, len);
        }
        pos = match next {
            0 => pos + 16 + size as u64,
            -1 => break,
            n if n > 0 && (n as u64) + 16 > len => {
                return Err(EdfError::at(
                    path,
                    pos,
                    "tag",
                    format!("next tag at byte {n} is past the end of the file ({len} bytes)"),
                ));
            }
            n if n > 0 && seen.contains(&(n as u64)) => {
                return Err(EdfError::at(
                    path,
                    pos,
                    "tag",
                    format!("next tag at byte {n} was read before: the tag chain loops"),
                ));
            }
            n if n > 0 => n as u64,
            n => return Err(EdfError::at(path, pos, "tag", format!("next tag at byte {n} is not a position"))),
        };
    }
    Ok(out)
}

/// Tags at least this large (data buffers) are taken to repeat at their stride for prefetching.
const PREFETCH_MIN_TAG: u64 = 16 << 10;
/// How many headers ahead are requested.
const PREFETCH_AHEAD: u64 = 1024;

/// A file that MNE's `raw.save` wrote has no tag directory, so its tags are found one header at a time, and
/// each header is a separate read from disk when the file is not in the page cache. Data buffers are
/// usually of one size: the headers that follow at that stride are asked for ahead of time
/// (`posix_fadvise(WILLNEED)`, which starts the reads without waiting), so the disk serves many at once.
/// A wrong guess only costs a wasted read. Returns how far headers have been requested.
fn prefetch_headers(file: &File, pos: u64, stride: u64, done: u64, len: u64) -> u64 {
    use std::os::fd::AsRawFd;
    // Continue where the last request stopped when it followed this stride; else start afresh.
    let aligned = done > pos && (done - pos) % stride == 0;
    // Keep half a window ahead before asking again.
    if aligned && done > pos + stride * PREFETCH_AHEAD / 2 {
        return done;
    }
    let mut at = if aligned { done } else { pos + stride };
    let end = (pos + stride * PREFETCH_AHEAD).min(len);
    while at + 16 <= end {
        // SAFETY: posix_fadvise only advises the kernel about this open descriptor's pages; no memory is shared.
        unsafe {
            libc::posix_fadvise(file.as_raw_fd(), at as libc::off_t, 16, libc::POSIX_FADV_WILLNEED);
        }
        at += stride;
    }
    at
}

fn data(path: &Path, file: &File, t: &Tag) -> Result<Vec<u8>, EdfError> {
    let mut b = vec![0u8; t.size];
    file.read_exact_at(&mut b, t.pos + 16).map_err(|e| EdfError::at(path, t.pos, "tag data", e.to_string()))?;
    Ok(b)
}

fn int(path: &Path, file: &File, t: &Tag) -> Result<i32, EdfError> {
    let b = data(path, file, t)?;
    b.get(..4)
        .map(|b| i32::from_be_bytes(b.try_into().expect("4 bytes")))
        .ok_or_else(|| EdfError::at(path, t.pos, "tag", format!("kind {} holds no integer", t.kind)))
}

/// A float or double array tag.
fn floats(path: &Path, file: &File, t: &Tag) -> Result<Vec<f64>, EdfError> {
    let b = data(path, file, t)?;
    Ok(match t.ty {
        4 => b.chunks_exact(4).map(|c| f64::from(f32::from_be_bytes(c.try_into().expect("4")))).collect(),
        5 => b.chunks_exact(8).map(|c| f64::from_be_bytes(c.try_into().expect("8"))).collect(),
        ty => return Err(EdfError::at(path, t.pos, "tag", format!("kind {} has type {ty}, not float", t.kind))),
    })
}

fn text(path: &Path, file: &File, t: &Tag) -> Result<String, EdfError> {
    Ok(String::from_utf8_lossy(&data(path, file, t)?).trim_end_matches('\0').to_string())
}

/// MNE's name lists: `:`-separated, `{COLON}` for a colon.
fn name_list(s: &str) -> Vec<String> {
    if s.is_empty() { Vec::new() } else { s.split(':').map(|v| v.replace("{COLON}", ":")).collect() }
}

/// A channel record: name, kind, range × cal, unit.
struct ChInfo {
    name: String,
    kind: i32,
    cal: f64,
    unit: i32,
    /// The electrode position (metres, head frame): loc[0..3].
    loc: [f64; 3],
}

fn ch_info(path: &Path, b: &[u8], pos: u64) -> Result<ChInfo, EdfError> {
    if b.len() < 96 {
        return Err(EdfError::at(path, pos, "channel info", format!("{} bytes (96 expected)", b.len())));
    }
    let i = |o: usize| i32::from_be_bytes(b[o..o + 4].try_into().expect("4"));
    let f = |o: usize| f64::from(f32::from_be_bytes(b[o..o + 4].try_into().expect("4")));
    let name = &b[80..96];
    let end = name.iter().position(|&c| c == 0).unwrap_or(16);
    Ok(ChInfo {
        name: String::from_utf8_lossy(&name[..end]).into_owned(),
        kind: i(8),
        cal: f(12) * f(16),
        unit: i(72),
        loc: [f(24), f(28), f(32)],
    })
}

/// The display unit and factor of a FIF unit: V → µV, T → fT, T/m → fT/cm.
fn unit(code: i32) -> (&'static str, f64) {
    match code {
        107 => ("µV", 1e6),
        112 => ("fT", 1e15),
        201 => ("fT/cm", 1e13),
        _ => ("", 1.0),
    }
}

/// The raw data of one file: first sample, buffers (their first sample counted from the file's first), the
/// next split file.
struct RawPart {
    first_samp: usize,
    buffers: Vec<(usize, Option<(u64, Dtype)>)>,
    next: Option<PathBuf>,
}

fn raw_part(path: &Path, file: &File, tags: &[Tag], nchan: usize) -> Result<RawPart, EdfError> {
    let in_raw = |t: &Tag| B_RAW.iter().any(|&b| t.within(b));
    let mut first_samp = 0usize;
    let mut skip = 0usize;
    let mut first_skip = None;
    let mut buffers: Vec<(usize, Option<(u64, Dtype)>)> = Vec::new();
    let mut seen_buffer = false;
    for t in tags.iter().filter(|t| in_raw(t)) {
        match t.kind {
            FIRST_SAMPLE if !seen_buffer => first_samp = int(path, file, t)?.max(0) as usize,
            DATA_SKIP => {
                let n = int(path, file, t)?.max(0) as usize;
                if seen_buffer { skip = n } else { first_skip = Some(n) }
            }
            DATA_BUFFER => {
                let dtype = match t.ty {
                    2 | 16 => Dtype::I16,
                    3 => Dtype::I32,
                    4 => Dtype::F32,
                    5 => Dtype::F64,
                    ty => {
                        return Err(EdfError::at(
                            path,
                            t.pos,
                            "data buffer",
                            format!("type {ty} is not read (int16, int32, float or double)"),
                        ));
                    }
                };
                let n = t.size / (dtype.bytes() * nchan);
                if let Some(k) = first_skip.take() {
                    first_samp += k * n;
                }
                if skip > 0 {
                    buffers.push((skip * n, None));
                    skip = 0;
                }
                buffers.push((n, Some((t.pos + 16, dtype))));
                seen_buffer = true;
            }
            _ => {}
        }
    }
    // Each reference block names a file and its role; as MNE, the last block decides, and only a
    // "next file" (role 2) one names a continuation.
    let mut next = None;
    let mut group: Vec<&Tag> = Vec::new();
    let mut groups: Vec<Vec<&Tag>> = Vec::new();
    for t in tags {
        if t.within(B_REF) {
            group.push(t);
        } else if !group.is_empty() {
            groups.push(std::mem::take(&mut group));
        }
    }
    if !group.is_empty() {
        groups.push(group);
    }
    for g in groups {
        next = None;
        let role = g.iter().find(|t| t.kind == REF_ROLE).map(|t| int(path, file, t)).transpose()?;
        if role == Some(2)
            && let Some(t) = g.iter().find(|t| t.kind == REF_FILE_NAME)
        {
            next = Some(path.with_file_name(text(path, file, t)?));
        }
    }
    Ok(RawPart { first_samp, buffers, next })
}

/// Opens a FIF raw file (and its split continuations).
pub fn open(path: &Path) -> Result<Continuous, EdfError> {
    let (file, len) = open_data(path, "open")?;
    let all = tags(path, &file, len)?;
    let info: Vec<&Tag> = all.iter().filter(|t| t.within(B_MEAS_INFO)).collect();
    let find = |k: i32| info.iter().find(|t| t.kind == k).copied();
    let nchan = find(NCHAN)
        .map(|t| int(path, &file, t))
        .transpose()?
        .ok_or_else(|| err(path, "measurement info", "no channel count"))?;
    let nchan = usize::try_from(nchan)
        .ok()
        .filter(|&n| n > 0 && n <= 100_000)
        .ok_or_else(|| err(path, "channel count", format!("{nchan}")))?;
    let sfreq = find(SFREQ).map(|t| floats(path, &file, t)).transpose()?.and_then(|v| v.first().copied());
    let sfreq = sfreq
        .filter(|r| r.is_finite() && *r > 0.0)
        .ok_or_else(|| err(path, "sampling rate", "missing or not positive"))?;
    let mut chs = Vec::new();
    for t in info.iter().filter(|t| t.kind == CH_INFO && !t.within(B_BAD_CHANNELS)) {
        chs.push(ch_info(path, &data(path, &file, t)?, t.pos)?);
    }
    if chs.len() != nchan {
        return Err(err(path, "measurement info", format!("{} channel records for {nchan} channels", chs.len())));
    }
    let bads = match info.iter().find(|t| t.within(B_BAD_CHANNELS) && t.kind == MNE_CH_NAME_LIST) {
        Some(t) => name_list(&text(path, &file, t)?),
        None => Vec::new(),
    };
    let mut repairs = Vec::new();
    let part = raw_part(path, &file, &all, nchan)?;
    if part.buffers.is_empty() {
        return Err(err(path, "raw data", "no raw data buffers (an epochs, evoked or forward file?)"));
    }
    let first_samp = part.first_samp;
    let mut files = vec![(path.to_path_buf(), file)];
    let mut buffers = Vec::new();
    let mut at = 0usize;
    let mut add = |fi: usize, bufs: &[(usize, Option<(u64, Dtype)>)], at: &mut usize| {
        for &(n, d) in bufs {
            buffers.push(Buffer { first: *at, n, data: d.map(|(o, t)| (fi, o, t)) });
            *at += n;
        }
    };
    add(0, &part.buffers, &mut at);
    let mut next = part.next;
    let mut data_len = len;
    while let Some(p) = next.take() {
        if files.len() > 1000 || !p.is_file() {
            repairs.push(Repair::file(
                "split files",
                format!("the next part {} is missing: the recording ends before it", p.display()),
            ));
            break;
        }
        let (f, l) = open_data(&p, "split file")?;
        let t = tags(&p, &f, l)?;
        let rp = raw_part(&p, &f, &t, nchan)?;
        add(files.len(), &rp.buffers, &mut at);
        files.push((p, f));
        data_len += l;
        next = rp.next;
    }
    // EEG electrodes (kind 2) with a position.
    let positions = chs
        .iter()
        .filter(|c| c.kind == 2 && c.loc != [0.0; 3] && c.loc.iter().all(|v| v.is_finite()))
        .map(|c| (c.name.clone(), c.loc))
        .collect();
    let (channels, scale): (Vec<Channel>, Vec<f64>) = chs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (u, k) = unit(c.unit);
            let kind = super::channel_kind::from_fif(c.kind, c.unit);
            (
                Channel { signal: i, label: c.name.clone(), sample_rate: sfreq, physical_dimension: u.into(), kind },
                c.cal * k,
            )
        })
        .unzip();
    // Skips: zeros, annotated BAD_ACQ_SKIP, with a run boundary at each end.
    let mut annotations = Vec::new();
    let mut run_starts = Vec::new();
    for b in buffers.iter().filter(|b| b.data.is_none()) {
        annotations.push(Annotation {
            onset_s: b.first as f64 / sfreq,
            duration_s: Some(b.n as f64 / sfreq),
            text: "BAD_ACQ_SKIP".into(),
        });
        run_starts.extend([b.first, b.first + b.n]);
    }
    annotations.extend(mne_annotations(path, &files[0].1, &all, first_samp as f64 / sfreq)?);
    annotations.sort_by(|a, b| a.onset_s.total_cmp(&b.onset_s));
    let matrix = Matrix::buffered(Buffered { files, buffers, big_endian: true }, nchan, scale);
    Ok(Continuous {
        path: path.to_path_buf(),
        format: "FIF".into(),
        sample_rate: sfreq,
        channels,
        matrix,
        annotations,
        run_starts,
        repairs,
        bads,
        positions,
        data_len,
    }
    .normalised())
}

/// MNE's annotations block: onsets (from the measurement start, so less the first sample's time),
/// ends and descriptions.
fn mne_annotations(path: &Path, file: &File, all: &[Tag], first_time: f64) -> Result<Vec<Annotation>, EdfError> {
    let block: Vec<&Tag> = all.iter().filter(|t| t.within(B_ANNOTATIONS)).collect();
    let get = |k: i32| block.iter().find(|t| t.kind == k).copied();
    let (Some(on), Some(off), Some(desc)) = (get(MNE_BASELINE_MIN), get(MNE_BASELINE_MAX), get(COMMENT)) else {
        return Ok(Vec::new());
    };
    let (on, off, desc) = (floats(path, file, on)?, floats(path, file, off)?, name_list(&text(path, file, desc)?));
    if on.len() != off.len() || on.len() != desc.len() {
        return Err(err(
            path,
            "annotations",
            format!("{} onsets, {} ends, {} descriptions", on.len(), off.len(), desc.len()),
        ));
    }
    Ok(on
        .iter()
        .zip(off)
        .zip(desc)
        .map(|((&o, e), text)| Annotation { onset_s: o - first_time, duration_s: Some(e - o), text })
        .collect())
}
