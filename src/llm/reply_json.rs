//! Finding the JSON value in a model's reply (bare, fenced in ```json, or inside prose), whatever model wrote
//! it: the one home the providers, the agents and the bench harness read replies through.

use serde_json::Value;

pub fn extract_json(text: &str) -> Option<Value> {
    extract_strict(text).or_else(|| {
        let escaped = escape_raw_controls(text);
        (escaped != text).then(|| extract_strict(&escaped)).flatten()
    })
}

/// Raw control characters inside JSON strings (a newline typed into a value — llama.cpp's server lets its
/// grammar produce them) escaped, as Python's `json.loads(strict=False)` reads them.
fn escape_raw_controls(text: &str) -> String {
    let (mut out, mut in_string, mut escaped) = (String::with_capacity(text.len()), false, false);
    for c in text.chars() {
        match c {
            _ if escaped => {
                escaped = false;
                out.push(c);
            }
            '\\' if in_string => {
                escaped = true;
                out.push(c);
            }
            '"' => {
                in_string = !in_string;
                out.push(c);
            }
            c if in_string && (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn extract_strict(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str(trimmed) {
        return Some(v);
    }
    let unfenced = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|t| t.trim_end().strip_suffix("```"))
        .map(str::trim);
    if let Some(v) = unfenced.and_then(|t| serde_json::from_str(t).ok()) {
        return Some(v);
    }
    // The first '{' or '[' whose text up to some later '}' or ']' parses.
    let start = trimmed.find(['{', '['])?;
    let body = &trimmed[start..];
    let mut ends: Vec<usize> = body.match_indices(['}', ']']).map(|(i, _)| i + 1).collect();
    ends.reverse();
    ends.into_iter().find_map(|end| serde_json::from_str(&body[..end]).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_raw_control_characters_in_strings() {
        assert_eq!(extract_json("{\"a\": \"x\ny\", \"b\": \"q\\\"\t\"}"), Some(json!({"a": "x\ny", "b": "q\"\t"})));
    }

    #[test]
    fn finds_json_in_replies() {
        assert_eq!(extract_json(r#" {"a":1} "#), Some(json!({"a": 1})));
        assert_eq!(extract_json("```json\n{\"a\": [1]}\n```"), Some(json!({"a": [1]})));
        assert_eq!(extract_json("Sure! Here it is: {\"label\": \"HC\"} Hope it helps {"), Some(json!({"label": "HC"})));
        assert_eq!(extract_json("no json here"), None);
    }
}
