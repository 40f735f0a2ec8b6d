//! Canonical forms the BrainBench rules compare: scalars, tokens and lists given as strings.

use serde_json::Value;

/// C's `%.12g`, upper-cased: 12 significant digits, trailing zeros dropped, exponent form outside 1e-4..1e12.
pub fn format_g12(v: f64) -> String {
    if v.is_nan() {
        return "NAN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "INF".into() } else { "-INF".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rounding to 12 significant digits decides the exponent (9.9999999999996 → 10).
    let sci = format!("{v:.11e}");
    let (mantissa, exp) = sci.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("integer exponent");
    if (-4..12).contains(&exp) {
        let decimals = (11 - exp).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}")).to_string()
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}E{sign}{:02}", trim_zeros(mantissa), exp.abs())
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
}

/// Canonical scalar: booleans `TRUE`/`FALSE`; integers their digits; an integral float its integer digits,
/// another float `%.12g`; strings trimmed and upper-cased; null `NONE`; lists and objects their compact JSON,
/// upper-cased.
pub fn canonical(value: &Value) -> String {
    match value {
        Value::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                canonical_float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => s.trim().to_uppercase(),
        Value::Null => "NONE".into(),
        other => other.to_string().trim().to_uppercase(),
    }
}

fn canonical_float(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 {
        if v == 0.0 { "0".into() } else { format!("{v:.0}") }
    } else {
        format_g12(v)
    }
}

/// Canonical token: the canonical scalar with every space removed.
pub fn token(value: &Value) -> String {
    canonical(value).replace(' ', "")
}

/// A prediction or truth as a list of tokens: a JSON list item by item; a string like `A, B` or `['A', 'B']`
/// split on commas after stripping surrounding brackets and parentheses, each item trimmed, stripped of quotes,
/// upper-cased and despaced (items empty after trimming are dropped); null is the empty list; any other value is
/// one token.
pub fn tokens(value: &Value) -> Vec<String> {
    match value {
        Value::Null => Vec::new(),
        Value::Array(items) => items.iter().map(token).collect(),
        Value::String(s) => s
            .trim_matches(|c| matches!(c, '[' | ']' | '(' | ')'))
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| item.trim_matches(|c| c == '\'' || c == '"').to_uppercase().replace(' ', ""))
            .collect(),
        other => vec![token(other)],
    }
}

/// Python's `float()` on a JSON value, finite only: a number, or a string `float()` accepts (surrounding
/// whitespace, a sign, digits with single underscores between them, a point, an exponent); booleans are not
/// numbers; NaN and infinities count as missing.
pub fn number(value: &Value) -> Option<f64> {
    let v = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => without_underscores(s.trim())?.parse::<f64>().ok()?,
        _ => return None,
    };
    v.is_finite().then_some(v)
}

/// Python's `int()` on a JSON value: a boolean is 0 or 1, a float is truncated (saturating at the i64 range),
/// a string is base-10 digits with an optional sign (underscores between digits allowed); `None` where `int()`
/// fails (NaN, a point in a string, a list, null).
pub fn int_coerced(value: &Value) -> Option<i64> {
    match value {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => n.as_i64().or_else(|| n.as_u64().map(|_| i64::MAX)).or_else(|| {
            let f = n.as_f64()?;
            (!f.is_nan()).then_some(f.trunc() as i64)
        }),
        Value::String(s) => {
            let digits = without_underscores(s.trim())?;
            let body = digits.strip_prefix(['+', '-']).unwrap_or(&digits);
            if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some(digits.parse::<i64>().unwrap_or(if digits.starts_with('-') { i64::MIN } else { i64::MAX }))
        }
        _ => None,
    }
}

/// The text with Python's digit-group underscores removed; `None` when an underscore is not between two digits.
fn without_underscores(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !s.contains('_') {
        return Some(s.into());
    }
    let b = s.as_bytes();
    let between_digits = |i: usize| i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit();
    (0..b.len()).filter(|&i| b[i] == b'_').all(between_digits).then(|| s.replace('_', "").into())
}

/// Order-keeping de-duplication.
pub fn dedupe(items: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    items.into_iter().filter(|item| seen.insert(item.clone())).collect()
}

/// Clamp to [0, 1]; anything not finite is 0.
pub fn clamp01(v: f64) -> f64 {
    if v.is_finite() { v.clamp(0.0, 1.0) } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn g12_matches_c_printf() {
        // Expected strings are Python's "%.12g" % v, upper-cased.
        for (v, want) in [
            (0.1, "0.1"),
            (1.0 / 3.0, "0.333333333333"),
            (123456789012.5, "123456789012"),
            (1234567890123.5, "1.23456789012E+12"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234E-05"),
            (9.9999999999996, "10"),
            (-2.5e-7, "-2.5E-07"),
            (1.5e300, "1.5E+300"),
        ] {
            assert_eq!(format_g12(v), want, "{v}");
        }
    }

    #[test]
    fn canonical_scalars() {
        assert_eq!(canonical(&json!(true)), "TRUE");
        assert_eq!(canonical(&json!(12)), "12");
        assert_eq!(canonical(&json!(12.0)), "12");
        assert_eq!(canonical(&json!(-0.0)), "0");
        assert_eq!(canonical(&json!(12.5)), "12.5");
        assert_eq!(canonical(&json!("  alpha band ")), "ALPHA BAND");
        assert_eq!(token(&json!("  alpha band ")), "ALPHABAND");
        assert_eq!(canonical(&Value::Null), "NONE");
    }

    #[test]
    fn lists_from_strings() {
        assert_eq!(tokens(&json!("['Fp1', \"C3 \", O2]")), ["FP1", "C3", "O2"]);
        assert_eq!(tokens(&json!("a, , b")), ["A", "B"]);
        assert_eq!(tokens(&json!([1, 2.0, "x y"])), ["1", "2", "XY"]);
        assert!(tokens(&Value::Null).is_empty());
        assert!(tokens(&json!("[]")).is_empty());
    }

    #[test]
    fn numbers() {
        assert_eq!(number(&json!(" 1e3 ")), Some(1000.0));
        assert_eq!(number(&json!(true)), None);
        assert_eq!(number(&json!("nan")), None);
        assert_eq!(number(&json!("1_0")), Some(10.0));
        assert_eq!(number(&json!("1__0")), None);
        assert_eq!(number(&json!("_1")), None);
        assert_eq!(number(&json!("\t.5\n")), Some(0.5));
        assert_eq!(number(&json!("-Infinity")), None);
    }

    #[test]
    fn ints_as_python_int() {
        // Expected values are Python 3.11's int() of the same value.
        assert_eq!(int_coerced(&json!(true)), Some(1));
        assert_eq!(int_coerced(&json!(-1.5)), Some(-1));
        assert_eq!(int_coerced(&json!(" +3 ")), Some(3));
        assert_eq!(int_coerced(&json!("1_0")), Some(10));
        assert_eq!(int_coerced(&json!("2.0")), None);
        assert_eq!(int_coerced(&json!("x")), None);
        assert_eq!(int_coerced(&Value::Null), None);
        assert_eq!(int_coerced(&json!([1])), None);
    }
}
