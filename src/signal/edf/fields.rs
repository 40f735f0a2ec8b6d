//! Decoding of the fixed-width ASCII header fields, leniently where the spec violation is recoverable.

use super::error::{EdfError, Repair};
use std::path::Path;

/// Reads fields from the raw header bytes and collects repairs; errors name `path`.
pub struct FieldReader<'a> {
    pub path: &'a Path,
    pub bytes: &'a [u8],
    pub repairs: Vec<Repair>,
}

impl<'a> FieldReader<'a> {
    pub fn new(path: &'a Path, bytes: &'a [u8]) -> Self {
        Self { path, bytes, repairs: Vec::new() }
    }

    /// The field `[offset, offset + len)` as text. Non-ASCII bytes are decoded as UTF-8 when valid, else as
    /// Latin-1, and control bytes become spaces; both are reported as repairs.
    pub fn text(&mut self, offset: usize, len: usize, field: &str) -> String {
        let raw = &self.bytes[offset..offset + len];
        if raw.iter().all(|b| (0x20..0x7f).contains(b)) {
            return String::from_utf8_lossy(raw).trim_end().to_string();
        }
        let cleaned: Vec<u8> = raw.iter().map(|&b| if b < 0x20 || b == 0x7f { b' ' } else { b }).collect();
        let had_control = cleaned.as_slice() != raw;
        let has_high = cleaned.iter().any(|&b| b >= 0x80);
        let text = match std::str::from_utf8(&cleaned) {
            Ok(s) => s.to_string(),
            Err(_) => cleaned.iter().map(|&b| b as char).collect(),
        };
        let how = match (had_control, has_high, std::str::from_utf8(&cleaned).is_ok()) {
            (true, false, _) => "control or NUL bytes replaced by spaces".to_string(),
            (c, true, utf8) => format!(
                "non-ASCII bytes decoded as {}{}",
                if utf8 { "UTF-8" } else { "Latin-1" },
                if c { "; control or NUL bytes replaced by spaces" } else { "" }
            ),
            (false, false, _) => unreachable!("field with only printable ASCII returned above"),
        };
        self.repairs.push(Repair::at(offset as u64, field, how));
        text.trim_end().to_string()
    }

    /// A number field. A decimal comma is accepted with a repair; anything else unparsable is an error.
    pub fn number(&mut self, offset: usize, len: usize, field: &str) -> Result<f64, EdfError> {
        let text = self.text(offset, len, field);
        let t = text.trim();
        if t.is_empty() {
            return Err(EdfError::at(self.path, offset as u64, field, "field is blank, a number is required"));
        }
        if let Some(v) = parse_plain_number(t) {
            return Ok(v);
        }
        if t.contains(',')
            && let Some(v) = parse_plain_number(&t.replace(',', "."))
        {
            self.repairs.push(Repair::at(offset as u64, field, format!("decimal comma in '{t}' read as {v}")));
            return Ok(v);
        }
        Err(EdfError::at(self.path, offset as u64, field, format!("'{t}' is not a number")))
    }

    /// A whole-number field (counts and sizes).
    pub fn integer(&mut self, offset: usize, len: usize, field: &str) -> Result<i64, EdfError> {
        let v = self.number(offset, len, field)?;
        if v.fract() != 0.0 || !v.is_finite() || v.abs() > 9.0e15 {
            return Err(EdfError::at(self.path, offset as u64, field, format!("'{v}' is not a whole number")));
        }
        Ok(v as i64)
    }
}

/// Parses a decimal number as EDF writes it (optional sign, digits, optional point, optional exponent).
fn parse_plain_number(t: &str) -> Option<f64> {
    let ok = t.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'));
    if !ok {
        return None;
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Splits "dd.mm.yy"-like text into three numbers, accepting `.`, `:`, `-`, `/` or space as separators.
/// Returns the numbers and whether the separator was the standard `.`.
pub fn split_triplet(t: &str) -> Option<([u32; 3], bool)> {
    let t = t.trim();
    let parts: Vec<&str> = t.split(['.', ':', '-', '/', ' ']).filter(|p| !p.is_empty()).collect();
    if parts.len() != 3 {
        return None;
    }
    let mut out = [0u32; 3];
    for (o, p) in out.iter_mut().zip(&parts) {
        if !p.bytes().all(|b| b.is_ascii_digit()) || p.len() > 4 {
            return None;
        }
        *o = p.parse().ok()?;
    }
    let standard = t.len() == 8 && t.as_bytes()[2] == b'.' && t.as_bytes()[5] == b'.';
    Some((out, standard))
}

/// The four-digit year of a two-digit EDF year (1985 clipping rule of the EDF spec).
pub fn full_year(yy: u32) -> i32 {
    if yy >= 100 {
        yy as i32
    } else if yy >= 85 {
        1900 + yy as i32
    } else {
        2000 + yy as i32
    }
}

/// Parses the year of an EDF+ recording field "Startdate dd-MMM-yyyy ...", if present and valid.
pub fn edfplus_startdate(recording: &str) -> Option<(i32, u32, u32)> {
    let mut words = recording.split_whitespace();
    if words.next()? != "Startdate" {
        return None;
    }
    let date = words.next()?;
    let parts: Vec<&str> = date.split('-').collect();
    if parts.len() != 3 {
        return None;
    }
    let day: u32 = parts[0].parse().ok()?;
    const MONTHS: [&str; 12] = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
    let month = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(parts[1]))? as u32 + 1;
    let year: i32 = parts[2].parse().ok()?;
    Some((year, month, day))
}

/// Formats a number into at most `width` characters, as precisely as fits (EDF header number fields).
pub fn format_number(v: f64, width: usize) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let s = format!("{}", v as i64);
        if s.len() <= width {
            return s;
        }
    }
    for decimals in (0..width).rev() {
        let s = format!("{v:.decimals$}");
        let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
        if s.len() <= width {
            return s;
        }
    }
    // Too large for the field even without decimals: use the widest representation that fits.
    let s = format!("{v:e}");
    s.chars().take(width).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_fit_their_field() {
        assert_eq!(format_number(1.0 / 3.0, 8), "0.333333");
        assert_eq!(format_number(-32768.0, 8), "-32768");
        assert_eq!(format_number(-3276.75, 8), "-3276.75");
        assert_eq!(format_number(123456.789, 8), "123456.8");
        assert_eq!(format_number(0.5, 8), "0.5");
    }

    #[test]
    fn dates_with_other_separators_parse() {
        assert_eq!(split_triplet("02.03.02"), Some(([2, 3, 2], true)));
        assert_eq!(split_triplet("2/3/02"), Some(([2, 3, 2], false)));
        assert_eq!(split_triplet("ab.cd.ef"), None);
        assert_eq!(full_year(85), 1985);
        assert_eq!(full_year(84), 2084);
        assert_eq!(edfplus_startdate("Startdate 02-MAR-2002 X X X"), Some((2002, 3, 2)));
    }
}
