//! MATLAB Level 5 MAT-files (`save -v6`/`-v7`, the format EEGLAB `.set` files use): numeric, logical,
//! char, cell and struct arrays, compressed or not, either byte order. Sparse arrays and objects are
//! recognised and kept as [`Value::Unsupported`]. v7.3 files are HDF5 and are refused with how to re-save.
//!
//! Bounds: every length is checked against the bytes present, nesting is limited, and a compressed element
//! may inflate to at most [`MAX_INFLATED`] bytes, so a malformed file gives an error, never a panic or an
//! unbounded allocation.

use flate2::read::ZlibDecoder;
use std::io::Read;

/// The largest a compressed element may inflate to (bytes).
pub const MAX_INFLATED: u64 = 4 << 30;
const MAX_DEPTH: usize = 32;
/// The most elements a struct array without fields may claim (it holds no data to bound them).
const MAX_EMPTY_ELEMENTS: usize = 1 << 16;

/// A MATLAB array.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Numeric or logical: dimensions and the real part, column-major.
    Numeric {
        dims: Vec<usize>,
        data: Vec<f64>,
    },
    /// Char: one string per row.
    Char(Vec<String>),
    Cell {
        dims: Vec<usize>,
        items: Vec<Value>,
    },
    /// Struct array: field names, and per element (column-major) the value of each field.
    Struct {
        dims: Vec<usize>,
        fields: Vec<String>,
        elements: Vec<Vec<Value>>,
    },
    /// Sparse, object, function handle, opaque (class number).
    Unsupported(u8),
}

impl Value {
    /// The field `name` of element `i` of a struct.
    pub fn field(&self, i: usize, name: &str) -> Option<&Value> {
        match self {
            Value::Struct { fields, elements, .. } => {
                let k = fields.iter().position(|f| f == name)?;
                elements.get(i)?.get(k)
            }
            _ => None,
        }
    }

    /// Elements of a struct array (0 for anything else).
    pub fn len(&self) -> usize {
        match self {
            Value::Struct { elements, .. } => elements.len(),
            Value::Cell { items, .. } => items.len(),
            Value::Numeric { data, .. } => data.len(),
            Value::Char(rows) => rows.len(),
            Value::Unsupported(_) => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The single number of a 1-element numeric array.
    pub fn scalar(&self) -> Option<f64> {
        match self {
            Value::Numeric { data, .. } if data.len() == 1 => Some(data[0]),
            _ => None,
        }
    }

    /// The text of a one-row char array (an empty char array is "").
    pub fn text(&self) -> Option<String> {
        match self {
            Value::Char(rows) if rows.len() <= 1 => Some(rows.first().cloned().unwrap_or_default()),
            _ => None,
        }
    }
}

/// Reads every variable of a MAT-file, in file order.
pub fn parse(bytes: &[u8]) -> Result<Vec<(String, Value)>, String> {
    if bytes.starts_with(b"MATLAB 7.3") || bytes.get(512..516) == Some(b"\x89HDF") {
        return Err("a MATLAB v7.3 (HDF5) file: re-save it as v7 (MATLAB: save(file, '-v7'); EEGLAB: \
                    pop_saveset with 'version', '7')"
            .into());
    }
    if bytes.len() < 128 {
        return Err("shorter than the 128-byte MAT-file header: not a MATLAB v5 file".into());
    }
    let be = match &bytes[126..128] {
        b"IM" => false,
        b"MI" => true,
        other => return Err(format!("no MAT-file byte-order mark at byte 126 ({other:?}): not a MATLAB v5 file")),
    };
    let mut out = Vec::new();
    let mut r = Reader { b: bytes, at: 128, be };
    while r.at + 8 <= bytes.len() {
        let (kind, data) = r.element()?;
        match kind {
            MI_COMPRESSED => {
                let inflated = inflate(data)?;
                let mut inner = Reader { b: &inflated, at: 0, be };
                let (k, d) = inner.element()?;
                if k == MI_MATRIX {
                    out.push(matrix(d, be, 0)?);
                }
            }
            MI_MATRIX => out.push(matrix(data, be, 0)?),
            _ => {}
        }
    }
    Ok(out)
}

const MI_INT8: u32 = 1;
const MI_UINT8: u32 = 2;
const MI_INT16: u32 = 3;
const MI_UINT16: u32 = 4;
const MI_INT32: u32 = 5;
const MI_UINT32: u32 = 6;
const MI_SINGLE: u32 = 7;
const MI_DOUBLE: u32 = 9;
const MI_INT64: u32 = 12;
const MI_UINT64: u32 = 13;
const MI_MATRIX: u32 = 14;
const MI_COMPRESSED: u32 = 15;
const MI_UTF8: u32 = 16;
const MI_UTF16: u32 = 17;
const MI_UTF32: u32 = 18;

fn inflate(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    ZlibDecoder::new(data)
        .take(MAX_INFLATED + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("a compressed element cannot be inflated: {e}"))?;
    if out.len() as u64 > MAX_INFLATED {
        return Err(format!("a compressed element inflates past {MAX_INFLATED} bytes"));
    }
    Ok(out)
}

/// Data elements, read in sequence.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    be: bool,
}

impl<'a> Reader<'a> {
    fn u32_at(&self, at: usize) -> u32 {
        let a: [u8; 4] = self.b[at..at + 4].try_into().expect("4 bytes");
        if self.be { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) }
    }

    /// The next element's type and data (small elements included); moves past its padding.
    fn element(&mut self) -> Result<(u32, &'a [u8]), String> {
        if self.at + 8 > self.b.len() {
            return Err(format!("an element tag at byte {} runs past the end", self.at));
        }
        let first = self.u32_at(self.at);
        // A small element packs its size into the upper half of the tag's first word.
        let small = first >> 16;
        if small != 0 {
            let kind = first & 0xffff;
            let n = small as usize;
            if n > 4 {
                return Err(format!("a small element at byte {} claims {n} bytes (at most 4)", self.at));
            }
            let data = &self.b[self.at + 4..self.at + 4 + n];
            self.at += 8;
            return Ok((kind, data));
        }
        let n = self.u32_at(self.at + 4) as usize;
        let start = self.at + 8;
        let end = start.checked_add(n).filter(|&e| e <= self.b.len()).ok_or_else(|| {
            format!("an element at byte {} claims {n} bytes, past the end ({} bytes)", self.at, self.b.len())
        })?;
        // Compressed elements are not padded; the others end on an 8-byte boundary.
        self.at = if first == MI_COMPRESSED { end } else { end.div_ceil(8) * 8 };
        Ok((first, &self.b[start..end]))
    }
}

/// The numbers of a numeric data element.
fn numbers(kind: u32, d: &[u8], be: bool) -> Result<Vec<f64>, String> {
    macro_rules! conv {
        ($t:ty, $n:expr) => {
            d.chunks_exact($n)
                .map(|c| {
                    let a: [u8; $n] = c.try_into().expect("chunk size");
                    (if be { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) }) as f64
                })
                .collect()
        };
    }
    Ok(match kind {
        MI_INT8 => d.iter().map(|&v| f64::from(v as i8)).collect(),
        MI_UINT8 | MI_UTF8 => d.iter().map(|&v| f64::from(v)).collect(),
        MI_INT16 => conv!(i16, 2),
        MI_UINT16 | MI_UTF16 => conv!(u16, 2),
        MI_INT32 => conv!(i32, 4),
        MI_UINT32 | MI_UTF32 => conv!(u32, 4),
        MI_SINGLE => conv!(f32, 4),
        MI_DOUBLE => conv!(f64, 8),
        MI_INT64 => conv!(i64, 8),
        MI_UINT64 => conv!(u64, 8),
        k => return Err(format!("data type {k} is not numeric")),
    })
}

/// A miMATRIX element's contents.
fn matrix(d: &[u8], be: bool, depth: usize) -> Result<(String, Value), String> {
    if depth > MAX_DEPTH {
        return Err(format!("arrays nested deeper than {MAX_DEPTH}"));
    }
    if d.is_empty() {
        return Ok((String::new(), Value::Numeric { dims: vec![0, 0], data: Vec::new() }));
    }
    let mut r = Reader { b: d, at: 0, be };
    let (_, flags) = r.element()?;
    if flags.len() < 4 {
        return Err("array flags are shorter than 4 bytes".into());
    }
    let f0 = if be {
        u32::from_be_bytes(flags[..4].try_into().expect("4"))
    } else {
        u32::from_le_bytes(flags[..4].try_into().expect("4"))
    };
    let class = (f0 & 0xff) as u8;
    let (dk, dd) = r.element()?;
    let dims: Vec<usize> = numbers(dk, dd, be)?.into_iter().map(|v| v.max(0.0) as usize).collect();
    let count = dims.iter().try_fold(1usize, |a, &n| a.checked_mul(n)).ok_or("dimensions overflow")?;
    let (_, name) = r.element()?;
    let name = String::from_utf8_lossy(name).into_owned();
    let value = match class {
        1 => {
            // Each item is at least an 8-byte tag: more items than that cannot be present.
            if count > d.len() / 8 {
                return Err(format!("a cell of {count} items in {} bytes", d.len()));
            }
            let mut items = Vec::with_capacity(count);
            for _ in 0..count {
                let (k, m) = r.element()?;
                if k != MI_MATRIX {
                    return Err(format!("a cell item of data type {k}, not an array"));
                }
                items.push(matrix(m, be, depth + 1)?.1);
            }
            Value::Cell { dims, items }
        }
        2 => {
            let (lk, ld) = r.element()?;
            let len = numbers(lk, ld, be)?.first().copied().unwrap_or(0.0).max(0.0) as usize;
            let (_, names) = r.element()?;
            if len == 0 && !names.is_empty() {
                return Err("struct field names with a name length of 0".into());
            }
            let fields: Vec<String> = if len == 0 {
                Vec::new()
            } else {
                names
                    .chunks(len)
                    .map(|c| {
                        String::from_utf8_lossy(&c[..c.iter().position(|&b| b == 0).unwrap_or(c.len())]).into_owned()
                    })
                    .collect()
            };
            let per = fields.len().max(1);
            // Each field value is at least an 8-byte tag; a struct without fields still keeps one entry per
            // element, so its element count is bounded too.
            if count.saturating_mul(fields.len()) > d.len() / 8 || (fields.is_empty() && count > MAX_EMPTY_ELEMENTS) {
                return Err(format!("a struct of {count} elements × {} fields in {} bytes", fields.len(), d.len()));
            }
            let mut elements = Vec::with_capacity(count);
            for _ in 0..count {
                let mut values = Vec::with_capacity(per);
                for _ in 0..fields.len() {
                    let (k, m) = r.element()?;
                    if k != MI_MATRIX {
                        return Err(format!("a struct field of data type {k}, not an array"));
                    }
                    values.push(matrix(m, be, depth + 1)?.1);
                }
                elements.push(values);
            }
            Value::Struct { dims, fields, elements }
        }
        4 => {
            let (k, cd) = r.element()?;
            let codes = numbers(k, cd, be)?;
            let text: String = if k == MI_UTF8 {
                String::from_utf8_lossy(cd).into_owned()
            } else {
                codes.iter().map(|&c| char::from_u32(c as u32).unwrap_or('\u{fffd}')).collect()
            };
            let chars: Vec<char> = text.chars().collect();
            // At most one row per character (an empty array has none, whatever its dimensions claim).
            let rows = dims.first().copied().unwrap_or(0).min(chars.len());
            let cols = chars.len().checked_div(rows).unwrap_or(0);
            // Column-major: row i holds chars i, i + rows, i + 2·rows, …
            Value::Char((0..rows).map(|i| (0..cols).map(|j| chars[j * rows + i]).collect()).collect())
        }
        6..=15 => {
            let (k, rd) = r.element()?;
            let data = numbers(k, rd, be)?;
            if data.len() != count {
                return Err(format!("{} values for dimensions {dims:?}", data.len()));
            }
            Value::Numeric { dims, data }
        }
        c => Value::Unsupported(c),
    };
    Ok((name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(kind: u32, data: &[u8]) -> Vec<u8> {
        let mut v = kind.to_le_bytes().to_vec();
        v.extend_from_slice(&(data.len() as u32).to_le_bytes());
        v.extend_from_slice(data);
        while !v.len().is_multiple_of(8) {
            v.push(0);
        }
        v
    }

    fn array(class: u8, dims: &[i32], name: &str, rest: &[u8]) -> Vec<u8> {
        let mut m = tag(MI_UINT32, &[class, 0, 0, 0, 0, 0, 0, 0]);
        m.extend(tag(MI_INT32, &dims.iter().flat_map(|d| d.to_le_bytes()).collect::<Vec<_>>()));
        m.extend(tag(MI_INT8, name.as_bytes()));
        m.extend_from_slice(rest);
        tag(MI_MATRIX, &m)
    }

    fn file(body: &[u8]) -> Vec<u8> {
        let mut h = vec![b' '; 128];
        h[..10].copy_from_slice(b"MATLAB 5.0");
        h[124..126].copy_from_slice(&0x0100u16.to_le_bytes());
        h[126..128].copy_from_slice(b"IM");
        h.extend_from_slice(body);
        h
    }

    #[test]
    fn reads_structs_chars_and_numbers() {
        // s = struct('a', {1, 2}, 'b', {'xy', 'z'}) — a 1×2 struct array.
        let dbl = |v: f64| array(6, &[1, 1], "", &tag(MI_DOUBLE, &v.to_le_bytes()));
        let chr = |s: &str| {
            let d: Vec<u8> = s.encode_utf16().flat_map(|c| c.to_le_bytes()).collect();
            array(4, &[1, s.len() as i32], "", &tag(MI_UINT16, &d))
        };
        let mut rest = tag(MI_INT32, &4i32.to_le_bytes());
        rest.extend(tag(MI_INT8, b"a\0\0\0b\0\0\0"));
        for (a, b) in [(1.0, "xy"), (2.0, "z")] {
            rest.extend(dbl(a));
            rest.extend(chr(b));
        }
        let bytes = file(&array(2, &[1, 2], "s", &rest));
        let vars = parse(&bytes).unwrap();
        assert_eq!(vars[0].0, "s");
        let s = &vars[0].1;
        assert_eq!(s.len(), 2);
        assert_eq!(s.field(1, "a").and_then(Value::scalar), Some(2.0));
        assert_eq!(s.field(0, "b").and_then(Value::text).as_deref(), Some("xy"));
    }

    #[test]
    fn compressed_variables_inflate() {
        use flate2::{Compression, write::ZlibEncoder};
        use std::io::Write;
        let inner = array(
            6,
            &[1, 3],
            "x",
            &tag(MI_DOUBLE, &[1.0f64, 2.0, 3.0].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>()),
        );
        let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
        z.write_all(&inner).unwrap();
        let z = z.finish().unwrap();
        let mut body = MI_COMPRESSED.to_le_bytes().to_vec();
        body.extend_from_slice(&(z.len() as u32).to_le_bytes());
        body.extend_from_slice(&z);
        let vars = parse(&file(&body)).unwrap();
        assert_eq!(vars[0], ("x".into(), Value::Numeric { dims: vec![1, 3], data: vec![1.0, 2.0, 3.0] }));
    }

    #[test]
    fn malformed_files_are_errors() {
        assert!(parse(b"short").unwrap_err().contains("128-byte"));
        let mut h = file(&[]);
        h[126..128].copy_from_slice(b"??");
        assert!(parse(&h).unwrap_err().contains("byte-order"));
        let mut v73 = file(&[]);
        v73[..10].copy_from_slice(b"MATLAB 7.3");
        assert!(parse(&v73).unwrap_err().contains("v7.3"));
        // A matrix element that claims more bytes than the file has.
        let mut body = MI_MATRIX.to_le_bytes().to_vec();
        body.extend_from_slice(&1000u32.to_le_bytes());
        assert!(parse(&file(&body)).unwrap_err().contains("past the end"));
        // Found by cargo-fuzz: a struct array without fields claiming 16 million elements (1.7 GB before the
        // bound), and a char array claiming more rows than it has characters.
        let empty_struct =
            array(2, &[1, 16_449_537], "s", &[tag(MI_INT32, &4i32.to_le_bytes()), tag(MI_INT8, b"")].concat());
        assert!(parse(&file(&empty_struct)).unwrap_err().contains("16449537 elements"));
        let chars = array(4, &[1_000_000, 1], "c", &tag(MI_UINT16, &[65, 0]));
        assert_eq!(parse(&file(&chars)).unwrap()[0].1, Value::Char(vec!["A".into()]));
        // Dimensions that do not match the data.
        let bad = array(6, &[2, 2], "x", &tag(MI_DOUBLE, &1.0f64.to_le_bytes()));
        assert!(parse(&file(&bad)).unwrap_err().contains("1 values"));
    }
}
