//! Time-stamped Annotation Lists (EDF+ spec section 2.2): `+onset[\x15duration]\x14text\x14...\x14\0`.

/// One TAL: an onset, an optional duration and the annotation texts that share them.
#[derive(Debug, Clone, PartialEq)]
pub struct Tal {
    /// Seconds after the header's start time.
    pub onset: f64,
    pub duration: Option<f64>,
    /// Texts in order; the time-keeping TAL of a record has an empty first text.
    pub texts: Vec<String>,
}

/// Parses every TAL in the bytes of one record's annotation signal. A TAL whose onset is not a number is
/// reported in the returned problems and skipped; the rest of the record is still read.
pub fn parse_tals(bytes: &[u8]) -> (Vec<Tal>, Vec<String>) {
    let mut tals = Vec::new();
    let mut problems = Vec::new();
    for chunk in bytes.split(|&b| b == 0).filter(|c| !c.is_empty()) {
        let mut parts: Vec<&[u8]> = chunk.split(|&b| b == 0x14).collect();
        if parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
        let Some((stamp, texts)) = parts.split_first() else { continue };
        let mut stamp_parts = stamp.splitn(2, |&b| b == 0x15);
        let onset_text = String::from_utf8_lossy(stamp_parts.next().unwrap_or_default());
        let Some(onset) = parse_seconds(&onset_text) else {
            problems.push(format!("TAL onset '{}' is not a signed number", onset_text.escape_debug()));
            continue;
        };
        let duration = match stamp_parts.next() {
            Some(d) => {
                let d = String::from_utf8_lossy(d);
                match parse_seconds(&d) {
                    Some(v) => Some(v),
                    None => {
                        problems.push(format!("TAL duration '{}' is not a number; ignored", d.escape_debug()));
                        None
                    }
                }
            }
            None => None,
        };
        let texts = texts.iter().map(|t| String::from_utf8_lossy(t).into_owned()).collect();
        tals.push(Tal { onset, duration, texts });
    }
    (tals, problems)
}

/// Parses an onset ("+12.5", "-0.25") or duration ("30"). A missing sign on an onset is accepted.
fn parse_seconds(text: &str) -> Option<f64> {
    let t = text.trim();
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'-') {
        return None;
    }
    digits.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Encodes one TAL as bytes (the writer's inverse of [`parse_tals`]).
pub fn encode_tal(onset: f64, duration: Option<f64>, texts: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(format_seconds(onset, true).as_bytes());
    if let Some(d) = duration {
        out.push(0x15);
        out.extend_from_slice(format_seconds(d, false).as_bytes());
    }
    out.push(0x14);
    for t in texts {
        // The separators are forbidden inside a text; replace them so the TAL stays parseable.
        out.extend(t.bytes().map(|b| if b == 0x14 || b == 0x15 || b == 0 { b' ' } else { b }));
        out.push(0x14);
    }
    out.push(0);
    out
}

/// Shortest decimal that round-trips `v` exactly (Rust's `Display` for `f64` never uses an exponent).
pub fn format_seconds(v: f64, signed: bool) -> String {
    let sign = if v < 0.0 {
        "-"
    } else if signed {
        "+"
    } else {
        ""
    };
    format!("{sign}{}", v.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_annotations_share_one_tal() {
        let mut bytes = encode_tal(0.0, None, &[""]);
        bytes.extend(encode_tal(12.5, Some(30.0), &["Sleep stage W", "Lights off"]));
        bytes.extend([0, 0, 0]);
        let (tals, problems) = parse_tals(&bytes);
        assert!(problems.is_empty());
        assert_eq!(tals.len(), 2);
        assert_eq!(tals[0].texts, vec![""]);
        assert_eq!(tals[1].onset, 12.5);
        assert_eq!(tals[1].duration, Some(30.0));
        assert_eq!(tals[1].texts, vec!["Sleep stage W", "Lights off"]);
    }

    #[test]
    fn bad_onset_is_reported_not_fatal() {
        let mut bytes = b"abc\x14x\x14\0".to_vec();
        bytes.extend(encode_tal(-0.25, None, &["ok"]));
        let (tals, problems) = parse_tals(&bytes);
        assert_eq!(problems.len(), 1);
        assert_eq!(tals[0].onset, -0.25);
    }

    #[test]
    fn seconds_format_round_trips() {
        assert_eq!(format_seconds(0.0, true), "+0");
        assert_eq!(format_seconds(1.0 / 3.0, false), "0.3333333333333333");
        assert_eq!(format_seconds(-2.5, true), "-2.5");
    }
}
