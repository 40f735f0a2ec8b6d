//! The header of a NumPy `.npy` file (format versions 1–3): dtype, memory order and shape, and where the data
//! start — enough to read the samples by positioned reads without loading the array.

use crate::signal::matrix::Dtype;

/// What the header says.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyHeader {
    pub dtype: Dtype,
    pub big_endian: bool,
    pub fortran_order: bool,
    pub shape: Vec<usize>,
    /// Byte offset of the first element.
    pub data_offset: u64,
}

/// Parses the header at the start of `bytes` (the first few KB of the file); the error says what is wrong.
pub fn parse_header(bytes: &[u8]) -> Result<NpyHeader, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("no NumPy magic (\\x93NUMPY) at the start: not a .npy file".into());
    }
    let major = bytes[6];
    let (len, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err("header length field is truncated".into());
            }
            (u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize, 12)
        }
        v => return Err(format!("format version {v} is not 1, 2 or 3")),
    };
    let Some(dict) = bytes.get(start..start + len) else {
        return Err(format!("the {len}-byte header runs past the end of the file"));
    };
    let dict = std::str::from_utf8(dict).map_err(|_| "the header is not text".to_string())?;
    let descr = string_value(dict, "descr").ok_or("the header has no 'descr' string (a structured dtype?)")?;
    let (dtype, big_endian) = dtype(&descr).ok_or_else(|| format!("dtype {descr:?} is not a numeric sample type"))?;
    let fortran_order = match word_value(dict, "fortran_order").as_deref() {
        Some("True") => true,
        Some("False") => false,
        other => return Err(format!("'fortran_order' is {other:?}, not True or False")),
    };
    let shape = shape_value(dict).ok_or("the header has no 'shape' tuple of whole numbers")?;
    Ok(NpyHeader { dtype, big_endian, fortran_order, shape, data_offset: (start + len) as u64 })
}

/// The text after `'key':`.
fn after_key<'a>(dict: &'a str, key: &str) -> Option<&'a str> {
    let at = dict.find(&format!("'{key}'")).or_else(|| dict.find(&format!("\"{key}\"")))?;
    let rest = &dict[at + key.len() + 2..];
    Some(rest.trim_start().strip_prefix(':')?.trim_start())
}

fn string_value(dict: &str, key: &str) -> Option<String> {
    let rest = after_key(dict, key)?;
    let q = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &rest[1..];
    Some(body[..body.find(q)?].to_string())
}

fn word_value(dict: &str, key: &str) -> Option<String> {
    let rest = after_key(dict, key)?;
    Some(rest.split(|c: char| !c.is_ascii_alphanumeric()).next()?.to_string())
}

fn shape_value(dict: &str) -> Option<Vec<usize>> {
    let rest = after_key(dict, "shape")?.strip_prefix('(')?;
    let body = &rest[..rest.find(')')?];
    body.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| s.trim_end_matches('L').parse().ok()).collect()
}

/// `<f8`, `>i2`, `|u1`, … → the sample type and byte order.
fn dtype(descr: &str) -> Option<(Dtype, bool)> {
    let (order, code) = match descr.as_bytes().first()? {
        b'<' | b'|' | b'=' => (false, &descr[1..]),
        b'>' => (true, &descr[1..]),
        _ => (false, descr),
    };
    let t = match code {
        "f8" => Dtype::F64,
        "f4" => Dtype::F32,
        "i8" => Dtype::I64,
        "i4" => Dtype::I32,
        "i2" => Dtype::I16,
        "i1" => Dtype::I8,
        "u4" => Dtype::U32,
        "u2" => Dtype::U16,
        "u1" | "b1" => Dtype::U8,
        _ => return None,
    };
    Some((t, order))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dict: &str) -> Vec<u8> {
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        b.extend_from_slice(dict.as_bytes());
        b
    }

    #[test]
    fn reads_what_numpy_writes() {
        // np.save's header for np.zeros((3, 1000), '>f4', order='F') (NumPy 2.4.6), padded to 128 bytes.
        let dict = format!("{{'descr': '>f4', 'fortran_order': True, 'shape': (3, 1000), }}{}\n", " ".repeat(56));
        let h = parse_header(&file(&dict)).unwrap();
        assert_eq!((h.dtype, h.big_endian, h.fortran_order), (Dtype::F32, true, true));
        assert_eq!(h.shape, [3, 1000]);
        assert_eq!(h.data_offset, 128);
        let h = parse_header(&file("{'descr': '<i2', 'fortran_order': False, 'shape': (7,), }\n")).unwrap();
        assert_eq!((h.dtype, h.shape), (Dtype::I16, vec![7]));
    }

    #[test]
    fn refuses_what_is_not_a_numeric_array() {
        assert!(parse_header(b"PK\x03\x04 not npy").unwrap_err().contains("not a .npy"));
        let e = parse_header(&file("{'descr': '<U5', 'fortran_order': False, 'shape': (2,), }\n")).unwrap_err();
        assert!(e.contains("<U5"), "{e}");
        let e = parse_header(&file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, x), }\n")).unwrap_err();
        assert!(e.contains("shape"), "{e}");
        assert!(parse_header(&file("{'descr': '<f8'")[..12]).unwrap_err().contains("past the end"));
    }
}
