//! Reading JSON the way Python writes it: a UTF-8 BOM is skipped, and the bare `NaN`, `Infinity` and
//! `-Infinity` that `json.dumps` emits become the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.

use serde::de::DeserializeOwned;
use std::borrow::Cow;

pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(first) => match quote_non_finite(text) {
            Some(fixed) => serde_json::from_str(&fixed).map_err(|_| first),
            None => Err(first),
        },
    }
}

/// The text as serde_json can read it in one pass: BOM skipped, Python's non-finite words quoted (only when
/// the text holds one of them at all, so ordinary files are not copied). For streamed reads, which must not
/// start over.
pub fn python_text(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !(text.contains("NaN") || text.contains("Infinity")) {
        return Cow::Borrowed(text);
    }
    quote_non_finite(text).map_or(Cow::Borrowed(text), Cow::Owned)
}

/// Quotes non-finite number words outside strings; `None` when there are none.
fn quote_non_finite(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let (mut i, mut last, mut in_string, mut changed) = (0, 0, false, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if let Some(word) =
            ["-Infinity", "Infinity", "NaN"].into_iter().find(|w| bytes[i..].starts_with(w.as_bytes()))
        {
            out.push_str(&text[last..i]);
            out.push('"');
            out.push_str(word);
            out.push('"');
            i += word.len();
            last = i;
            changed = true;
            continue;
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    #[test]
    fn python_non_finite_numbers() {
        let v: Value = super::from_str("\u{feff}{\"a\": NaN, \"b\": [-Infinity, 1], \"c\": \"NaN x\"}").unwrap();
        assert_eq!(v, json!({"a": "NaN", "b": ["-Infinity", 1], "c": "NaN x"}));
        assert!(super::from_str::<Value>("{\"a\": Nope}").is_err());
        assert_eq!(super::python_text("[NaN, \"NaN\"]"), "[\"NaN\", \"NaN\"]");
        assert!(matches!(super::python_text("\u{feff}[1]"), std::borrow::Cow::Borrowed("[1]")));
    }
}
