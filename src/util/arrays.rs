//! Numeric arrays from container formats, as `f64`: a `.npz` member of any numeric dtype. One home for the
//! conversion the network and recording readers share (MATLAB files: util::mat5).

use ndarray::ArrayD;
use std::io::{Read, Seek};

/// Brackets a NumPy header may nest: `{'descr': [('x', '<f8', (2,))], …}` is 4 deep.
const NPY_MAX_NESTING: usize = 6;

/// Refuses a `.npy` file whose header nests brackets deeper than NumPy writes them, before ndarray-npy parses
/// it: its parser backtracks exponentially in the nesting (found by cargo-fuzz: a 130-byte file took 4.7 s in a
/// debug build, more with each bracket). A file without the NumPy magic is left to the reader to refuse.
pub fn check_npy_header(path: &std::path::Path) -> Result<(), String> {
    let mut f = std::fs::File::open(path).map_err(|e| format!("cannot be opened: {e}"))?;
    check_header(&mut f)
}

/// [`check_npy_header`] for every `.npy` member of a `.npz` archive (a file that is not a zip archive is left
/// to the reader to refuse).
pub fn check_npz_headers(path: &std::path::Path) -> Result<(), String> {
    let f = std::fs::File::open(path).map_err(|e| format!("cannot be opened: {e}"))?;
    check_npz_headers_of(f)
}

/// [`check_npz_headers`] on an archive already open (or held in memory).
pub fn check_npz_headers_of<R: Read + Seek>(archive: R) -> Result<(), String> {
    let Ok(mut z) = zip::ZipArchive::new(archive) else { return Ok(()) };
    for i in 0..z.len() {
        let Ok(mut member) = z.by_index(i) else { continue };
        let name = member.name().to_string();
        check_header(&mut member).map_err(|e| format!("member {name}: {e}"))?;
    }
    Ok(())
}

/// The nesting check on a `.npy` stream's header.
fn check_header(r: &mut impl Read) -> Result<(), String> {
    let mut head = [0u8; 10];
    if r.read_exact(&mut head).is_err() || &head[..6] != b"\x93NUMPY" {
        return Ok(());
    }
    let len = if head[6] == 1 {
        u16::from_le_bytes([head[8], head[9]]) as usize
    } else {
        let mut more = [0u8; 2];
        if r.read_exact(&mut more).is_err() {
            return Ok(());
        }
        u32::from_le_bytes([head[8], head[9], more[0], more[1]]) as usize
    };
    let mut header = Vec::new();
    r.take(len.min(1 << 20) as u64).read_to_end(&mut header).map_err(|e| e.to_string())?;
    let deepest = nesting(&header);
    if deepest > NPY_MAX_NESTING {
        return Err(format!(
            "its .npy header nests brackets {deepest} deep; a NumPy header nests at most {NPY_MAX_NESTING}: not a NumPy file"
        ));
    }
    Ok(())
}

/// How deep brackets nest outside the Python string literals of a header, scanned as Python scans them: a
/// backslash escapes the next character, a triple quote opens a string only a triple quote closes (found by
/// cargo-fuzz: an escaped quote, `'\\'<f4'`, made a quote-parity count see the rest of a 12-deep header as
/// one string, and ndarray-npy's parser took 10 s on it).
fn nesting(header: &[u8]) -> usize {
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while i < header.len() {
        match header[i] {
            q @ (b'\'' | b'"') => {
                let triple = header.get(i + 1) == Some(&q) && header.get(i + 2) == Some(&q);
                let close: &[u8] = if triple { &[q, q, q] } else { &[q] };
                i += close.len();
                while i < header.len() && !header[i..].starts_with(close) {
                    i += if header[i] == b'\\' { 2 } else { 1 };
                }
                i += close.len();
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    deepest
}

/// The member `key` of a `.npz` archive as `f64`, whatever its numeric dtype; the error is the last reader's.
pub fn npz_f64<R: Read + Seek>(z: &mut ndarray_npy::NpzReader<R>, key: &str) -> Result<ArrayD<f64>, String> {
    macro_rules! try_as {
        ($t:ty) => {
            if let Ok(a) = z.by_name::<ndarray::OwnedRepr<$t>, ndarray::IxDyn>(key) {
                return Ok(a.mapv(|v| v as f64));
            }
        };
    }
    try_as!(f64);
    try_as!(f32);
    try_as!(i64);
    try_as!(i32);
    try_as!(i16);
    try_as!(i8);
    try_as!(u8);
    try_as!(u16);
    try_as!(u32);
    z.by_name::<ndarray::OwnedRepr<u64>, ndarray::IxDyn>(key)
        .map(|a| a.mapv(|v| v as f64))
        .map_err(|e| format!("member {key:?} is not a numeric array: {e}"))
}

/// One member of an `.npz` written by [`write_npz`]: float64, int64 or Unicode strings (numpy's `<U` dtype,
/// which `np.load` reads without `allow_pickle`), with its shape (`[]` for a 0-d array).
pub enum NpyArray<'a> {
    F64(Vec<usize>, &'a [f64]),
    I64(Vec<usize>, &'a [i64]),
    Str(Vec<usize>, &'a [String]),
}

/// Writes one array as `.npy` (format 1.0, header padded to 64 bytes as numpy writes it) to `w`, its body
/// streamed (no copy of the array is made).
pub fn write_npy(w: &mut impl std::io::Write, a: &NpyArray) -> std::io::Result<()> {
    let width = match a {
        NpyArray::Str(_, d) => d.iter().map(|t| t.chars().count()).max().unwrap_or(0).max(1),
        _ => 0,
    };
    let (shape, descr) = match a {
        NpyArray::F64(s, _) => (s, "<f8".to_string()),
        NpyArray::I64(s, _) => (s, "<i8".to_string()),
        NpyArray::Str(s, _) => (s, format!("<U{width}")),
    };
    let dims = match shape.as_slice() {
        [] => "()".to_string(),
        [one] => format!("({one},)"),
        many => format!("({})", many.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    let total = 10 + header.len() + 1;
    header.extend(std::iter::repeat_n(' ', total.next_multiple_of(64) - total));
    header.push('\n');
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(header.len() as u16).to_le_bytes())?;
    w.write_all(header.as_bytes())?;
    let mut buf = Vec::with_capacity(1 << 16);
    // A little-endian machine's numbers are their `.npy` bytes already: written as they are, with no copy.
    macro_rules! chunks {
        ($d:expr) => {
            if cfg!(target_endian = "little") {
                w.write_all(bytemuck::cast_slice(&$d[..]))?;
            } else {
                for chunk in $d.chunks(8192) {
                    buf.clear();
                    chunk.iter().for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
                    w.write_all(&buf)?;
                }
            }
        };
    }
    match a {
        NpyArray::F64(_, d) => chunks!(d),
        NpyArray::I64(_, d) => chunks!(d),
        NpyArray::Str(_, d) => {
            for t in d.iter() {
                let n = t.chars().count();
                buf.clear();
                buf.extend(t.chars().flat_map(|c| (c as u32).to_le_bytes()));
                buf.extend(std::iter::repeat_n(0u8, (width - n) * 4));
                w.write_all(&buf)?;
            }
        }
    }
    Ok(())
}

/// Writes an uncompressed `.npz` (as `np.savez`) holding `members`; the file appears whole or not at all
/// (written beside `path`, then renamed).
pub fn write_npz(path: &std::path::Path, members: &[(&str, NpyArray)]) -> std::io::Result<()> {
    let part = path.with_extension("npz.partial");
    let result = (|| {
        let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(std::fs::File::create(&part)?));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(true);
        for (name, a) in members {
            zip.start_file(format!("{name}.npy"), options).map_err(std::io::Error::other)?;
            write_npy(&mut zip, a)?;
        }
        let mut w = zip.finish().map_err(std::io::Error::other)?;
        std::io::Write::flush(&mut w)?;
        drop(w);
        std::fs::rename(&part, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    result
}

/// The member `key` of an `.npz` holding Unicode strings (`<U` dtype): its shape and values in C order.
pub fn npz_strings(path: &std::path::Path, key: &str) -> Result<(Vec<usize>, Vec<String>), String> {
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(f).map_err(|e| format!("not an .npz (zip) file: {e}"))?;
    npz_strings_of(&mut zip, key)
}

/// [`npz_strings`] from an archive already open.
pub fn npz_strings_of<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    key: &str,
) -> Result<(Vec<usize>, Vec<String>), String> {
    let mut member = zip.by_name(&format!("{key}.npy")).map_err(|_| format!("no member {key:?}"))?;
    let mut bytes = Vec::new();
    member.read_to_end(&mut bytes).map_err(|e| format!("member {key:?}: {e}"))?;
    parse_npy_strings(&bytes).map_err(|e| format!("member {key:?}: {e}"))
}

fn parse_npy_strings(bytes: &[u8]) -> Result<(Vec<usize>, Vec<String>), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not an .npy array".into());
    }
    let (len, start): (usize, usize) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(format!("npy format version {v} is not supported")),
    };
    let header = bytes.get(start..start.saturating_add(len)).ok_or("header cut short")?;
    let header = std::str::from_utf8(header).map_err(|_| "header is not text")?;
    let field = |name: &str| -> Option<&str> {
        let at = header.find(&format!("'{name}':"))? + name.len() + 3;
        Some(header[at..].trim_start())
    };
    let descr = field("descr").ok_or("header has no descr")?;
    let width: usize = descr
        .strip_prefix("'<U")
        .and_then(|d| d.split('\'').next())
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| format!("not a Unicode string array (descr {})", descr.split(',').next().unwrap_or("")))?;
    if field("fortran_order").is_some_and(|f| f.starts_with("True")) {
        return Err("Fortran order is not supported for strings".into());
    }
    let shape_text = field("shape").and_then(|s| s.strip_prefix('(')).and_then(|s| s.split(')').next());
    let shape: Vec<usize> = shape_text
        .ok_or("header has no shape")?
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| format!("bad shape entry {s:?}")))
        .collect::<Result<_, _>>()?;
    let count = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).ok_or("shape overflows")?;
    let body = &bytes[start + len..];
    if width.checked_mul(4).and_then(|w| w.checked_mul(count)) != Some(body.len()) {
        return Err(format!("{} data bytes for {count} strings of {width} characters", body.len()));
    }
    let mut out = Vec::with_capacity(count);
    for item in body.chunks(width * 4).take(count) {
        let s: String = item
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .take_while(|&c| c != 0)
            .map(|c| char::from_u32(c).ok_or_else(|| format!("code point {c:#x} is not a character")))
            .collect::<Result<_, _>>()?;
        out.push(s);
    }
    Ok((shape, out))
}

#[cfg(test)]
mod npz_tests {

    fn npy_with_header(dir: &std::path::Path, name: &str, header: &str) -> std::path::PathBuf {
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend((header.len() as u16).to_le_bytes());
        b.extend(header.as_bytes());
        let p = dir.join(name);
        std::fs::write(&p, b).unwrap();
        p
    }

    /// Found by cargo-fuzz (timeseries_connectivity, a 20-s timeout): ndarray-npy's header parser backtracks
    /// exponentially in nested brackets; such a header is refused before it is parsed.
    #[test]
    fn npy_headers_nested_deeper_than_numpy_writes_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let deep = format!("{{'descr': '<f8', 'shape': {}1{}}}", "[".repeat(19), "]".repeat(19));
        let e = check_npy_header(&npy_with_header(d.path(), "deep.npy", &deep)).unwrap_err();
        assert!(e.contains("nests brackets 20 deep"), "{e}");
        // What NumPy writes passes: a plain array, and a structured dtype with a sub-array (4 deep).
        let plain = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }";
        assert!(check_npy_header(&npy_with_header(d.path(), "plain.npy", plain)).is_ok());
        let structured = "{'descr': [('x', '<f8', (2,))], 'fortran_order': False, 'shape': (3,), }";
        assert!(check_npy_header(&npy_with_header(d.path(), "s.npy", structured)).is_ok());
        // Brackets inside quoted names do not count; a file that is not NumPy is left to the reader.
        let quoted = "{'descr': [('(((((((', '<f8')], 'fortran_order': False, 'shape': (3,), }";
        assert!(check_npy_header(&npy_with_header(d.path(), "q.npy", quoted)).is_ok());
        std::fs::write(d.path().join("x.npy"), b"not numpy").unwrap();
        assert!(check_npy_header(&d.path().join("x.npy")).is_ok());
        // The same inside a .npz archive, the member named.
        let npz = d.path().join("a.npz");
        let mut z = zip::ZipWriter::new(std::fs::File::create(&npz).unwrap());
        for (name, file) in [("ok.npy", "plain.npy"), ("bad.npy", "deep.npy")] {
            z.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
            std::io::Write::write_all(&mut z, &std::fs::read(d.path().join(file)).unwrap()).unwrap();
        }
        z.finish().unwrap();
        let e = check_npz_headers(&npz).unwrap_err();
        assert!(e.starts_with("member bad.npy: its .npy header nests brackets 20 deep"), "{e}");
        assert!(check_npz_headers(&d.path().join("plain.npy")).is_ok(), "not a zip: left to the reader");
    }

    /// Found by cargo-fuzz (timeseries_connectivity, a second timeout, 10 s in release): an escaped quote
    /// inside a string hid 12 nested brackets from a count that only tracked quote parity. The header as the
    /// fuzzer wrote it; a triple-quoted string with a lone quote inside counts as one string.
    #[test]
    fn escaped_and_triple_quotes_do_not_hide_nesting() {
        let d = tempfile::tempdir().unwrap();
        let fuzzed = "{'e    9-   scr': '<&f4',{{B'd    od s`r': '\\'<?&f4', {{B'd     s`r':('<&f4', { { {{B'd     s`r':('<&f4', { {{B'd\n\n\n\n\n\n  ";
        let e = check_npy_header(&npy_with_header(d.path(), "fuzzed.npy", fuzzed)).unwrap_err();
        assert!(e.contains("nests brackets"), "{e}");
        assert_eq!(nesting(br"{'a': 'x\'(((((((((', 'b': 1}"), 1, "an escaped quote stays inside its string");
        assert_eq!(nesting(b"{'''a'[[[[[[[[''': ((1,),)}"), 3, "a triple-quoted string ends at a triple quote");
    }

    use super::*;

    #[test]
    fn strings_numbers_round_trip_through_an_npz() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.npz");
        let ids = vec!["NYU_0051020".to_string(), "é".to_string(), String::new()];
        let x = [1.5, -2.0, 3.25, 4.0];
        let meta = vec!["{\"kind\": \"correlation\"}".to_string()];
        write_npz(
            &path,
            &[
                ("ids", NpyArray::Str(vec![3], &ids)),
                ("x", NpyArray::F64(vec![2, 2], &x)),
                ("n", NpyArray::I64(vec![2], &[7, 8])),
                ("meta", NpyArray::Str(vec![], &meta)),
            ],
        )
        .unwrap();
        assert_eq!(npz_strings(&path, "ids").unwrap(), (vec![3], ids));
        assert_eq!(npz_strings(&path, "meta").unwrap(), (vec![], meta));
        let mut z = ndarray_npy::NpzReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let a = npz_f64(&mut z, "x.npy").unwrap();
        assert_eq!(a.shape(), &[2, 2]);
        assert_eq!(a.iter().copied().collect::<Vec<_>>(), x);
        assert!(npz_strings(&path, "x").unwrap_err().contains("not a Unicode string array"));
        assert!(!dir.path().join("c.npz.partial").exists());
    }
}
