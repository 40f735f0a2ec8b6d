//! The model's own probabilities of an enum's options from an OpenAI-compatible endpoint's `logprobs`
//! (`"logprobs": true, "top_logprobs": N`; OpenAI, llama.cpp's server, vLLM, recent Ollama), by the chain
//! rule over the chosen value's tokens and the alternatives listed where another option leaves it,
//! renormalised over the options (`choice_at`). The local model scores whole values instead
//! (`local::generate`); a top-N list is the nearest a remote endpoint allows, and it is only read where the
//! reply's tokens spell its text exactly.

use crate::llm::types::{EnumChoice, ResponseFormat};
use serde_json::Value;

/// Alternatives asked for at each token (OpenAI's limit is 20).
pub const TOP: u64 = 10;

/// One generated token: its text, its log-probability and the alternatives listed at its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub text: String,
    pub logprob: f64,
    pub top: Vec<(String, f64)>,
}

/// Whether a request's reply has an enum whose options' probabilities are worth asking for: a JSON schema
/// with a string enum among its object properties.
pub fn wanted(format: &ResponseFormat) -> bool {
    match format {
        ResponseFormat::JsonSchema { schema, .. } => !enum_fields(schema).is_empty(),
        _ => false,
    }
}

/// The tokens of one reply's (or one stream chunk's) `choices[0].logprobs.content`.
pub fn tokens(choice: &Value) -> Vec<Token> {
    choice["logprobs"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let top = t["top_logprobs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| Some((a["token"].as_str()?.to_string(), a["logprob"].as_f64()?)))
                .collect();
            Some(Token { text: t["token"].as_str()?.to_string(), logprob: t["logprob"].as_f64()?, top })
        })
        .collect()
}

/// The enum choices of a reply, in the order the values appear in its text: one per string-enum property of
/// the schema whose value the reply holds and whose first token lists alternatives. Empty when the tokens
/// do not spell the text (a server that returns bytes or another tokenisation) or carry no alternatives.
pub fn enum_choices(schema: &Value, reply: &Value, text: &str, tokens: &[Token]) -> Vec<EnumChoice> {
    if tokens.is_empty() || tokens.iter().map(|t| t.text.as_str()).collect::<String>() != text {
        return Vec::new();
    }
    let mut found: Vec<(usize, EnumChoice)> = enum_fields(schema)
        .into_iter()
        .filter_map(|(path, options)| {
            let value = path.iter().try_fold(reply, |v, k| v.get(k))?.as_str()?;
            if !options.iter().any(|o| o == value) {
                return None;
            }
            let at = value_offset(text, path.last()?, value)?;
            Some((at, choice_at(text, tokens, at, value, &options)?))
        })
        .collect();
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, c)| c).collect()
}

/// (path of property names, options) of every string enum reachable through object properties.
fn enum_fields(schema: &Value) -> Vec<(Vec<String>, Vec<String>)> {
    fn walk(s: &Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Vec<String>)>) {
        if let Some(options) = s["enum"].as_array() {
            let texts: Vec<String> = options.iter().filter_map(|o| o.as_str().map(String::from)).collect();
            if texts.len() >= 2 && texts.len() == options.len() && !path.is_empty() {
                out.push((path.clone(), texts));
            }
        }
        if let Some(props) = s["properties"].as_object() {
            for (k, sub) in props {
                path.push(k.clone());
                walk(sub, path, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

/// Byte offset in `text` of the first character of `value` written as `"key": "value"` (any spacing).
fn value_offset(text: &str, key: &str, value: &str) -> Option<usize> {
    let quoted_key = format!("\"{key}\"");
    let mut from = 0;
    while let Some(i) = text[from..].find(&quoted_key) {
        let after = from + i + quoted_key.len();
        let rest = &text[after..];
        let trimmed = rest.trim_start();
        if let Some(colon) = trimmed.strip_prefix(':') {
            let v = colon.trim_start();
            if let Some(inner) = v.strip_prefix('"')
                && inner.starts_with(value)
                && inner[value.len()..].starts_with('"')
            {
                return Some(text.len() - inner.len());
            }
        }
        from = after;
    }
    None
}

/// The options' probabilities by the chain rule over the value's tokens: the chosen option's is the product
/// of its tokens' probabilities; another option's is the product up to the token where it leaves the chosen
/// text, times the alternatives listed there that continue it (an alternative that opens a `"` closes the
/// value there). An alternative that could continue two options counts for neither. An option no listed
/// alternative continues gets at most the mass the list leaves out at that token (it would otherwise be
/// listed), shared among such options and bounded by the least listed alternative. None when the value's
/// tokens cannot be found.
fn choice_at(text: &str, tokens: &[Token], at: usize, value: &str, options: &[String]) -> Option<EnumChoice> {
    let chosen = options.iter().position(|o| o == value)?;
    let end = at + options[chosen].len();
    let mut mass = vec![0.0; options.len()];
    let mut settled = vec![false; options.len()];
    settled[chosen] = true;
    let (mut start, mut prefix) = (0, 1.0);
    for t in tokens {
        let (s, e) = (start, start + t.text.len());
        start = e;
        if e <= at {
            continue;
        }
        if s >= end {
            break;
        }
        // The value written before this token, and the token's text before the value (a quote, a space).
        let written = &text[at..s.max(at)];
        let lead = &text[s..s.max(at)];
        let mut listed = t.top.clone();
        if !listed.iter().any(|(x, _)| *x == t.text) {
            listed.push((t.text.clone(), t.logprob));
        }
        let mut here = vec![0.0; options.len()];
        for (x, lp) in &listed {
            let Some(rest) = x.strip_prefix(lead) else { continue };
            let (body, closes) = match rest.find('"') {
                Some(q) => (&rest[..q], true),
                None => (rest, false),
            };
            let so_far = format!("{written}{body}");
            let fits: Vec<usize> =
                (0..options.len())
                    .filter(|&i| !settled[i])
                    .filter(|&i| {
                        if closes { options[i] == so_far } else { !body.is_empty() && options[i].starts_with(&so_far) }
                    })
                    .collect();
            if let [i] = fits[..] {
                here[i] += lp.exp();
            }
        }
        // Options that leave the chosen text at this token.
        let chosen_so_far = &text[at..e.min(end)];
        let leaving: Vec<usize> =
            (0..options.len()).filter(|&i| !settled[i] && !options[i].starts_with(chosen_so_far)).collect();
        let listed_mass: f64 = listed.iter().map(|(_, lp)| lp.exp()).sum();
        let least = listed.iter().map(|(_, lp)| lp.exp()).fold(f64::INFINITY, f64::min);
        let absent = leaving.iter().filter(|&&i| here[i] <= 0.0).count();
        for &i in &leaving {
            mass[i] = prefix
                * if here[i] > 0.0 { here[i] } else { ((1.0 - listed_mass).max(0.0) / absent as f64).min(least) };
            settled[i] = true;
        }
        prefix *= t.logprob.exp();
    }
    if start < end {
        return None;
    }
    // An option that begins with the whole chosen text would leave at the closing quote: not read (0).
    mass[chosen] = prefix;
    let total: f64 = mass.iter().sum();
    (total > 0.0).then(|| EnumChoice {
        options: options.iter().zip(&mass).map(|(o, m)| (Value::from(o.as_str()).to_string(), m / total)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tok(text: &str, lp: f64, top: &[(&str, f64)]) -> Token {
        Token { text: text.into(), logprob: lp, top: top.iter().map(|(t, l)| (t.to_string(), *l)).collect() }
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "claims": {"type": "array", "items": {"type": "string"}},
            "label": {"enum": ["ASD", "HC"]},
            "confidence": {"type": "number"}}})
    }

    #[test]
    fn the_label_token_alternatives_give_each_option_its_probability() {
        // {"label": "ASD"} tokenised as `{"`, `label`, `":`, ` "`, `AS`, `D`, `"}`; at `AS` the
        // alternatives are `AS` (p 0.7), `HC` (0.2) and `A` (0.05: begins ASD only).
        let ts = [
            tok("{\"", -0.01, &[]),
            tok("label", -0.01, &[]),
            tok("\":", -0.01, &[]),
            tok(" \"", -0.01, &[]),
            tok("AS", 0.7f64.ln(), &[("AS", 0.7f64.ln()), ("HC", 0.2f64.ln()), ("A", 0.05f64.ln())]),
            tok("D", -0.001, &[]),
            tok("\"}", -0.001, &[]),
        ];
        let text = "{\"label\": \"ASD\"}";
        let c = enum_choices(&schema(), &json!({"label": "ASD"}), text, &ts);
        assert_eq!(c.len(), 1);
        let p: Vec<f64> = c[0].options.iter().map(|(_, p)| *p).collect();
        assert_eq!(c[0].options[0].0, "\"ASD\"");
        // ASD: its own path, `AS` then `D` (0.7 · e^-0.001); `A` is another spelling of it, not counted.
        let asd = 0.7 * (-0.001f64).exp();
        assert!((p[0] - asd / (asd + 0.2)).abs() < 1e-12 && (p[1] - 0.2 / (asd + 0.2)).abs() < 1e-12, "{p:?}");
    }

    #[test]
    fn options_that_share_tokens_part_where_they_leave_the_chosen_text() {
        // Subject labels tokenised one digit at a time: sub-101309 leaves at the third digit (`1` listed with
        // 0.15 where `0` was chosen with 0.8), sub-100307 at the fourth (`3`, 0.3, where `2` had 0.6).
        let schema = json!({"properties": {"label": {"enum": ["sub-100206", "sub-100307", "sub-101309"]}}});
        let mut ts = vec![tok("{\"label\": \"", 0.0, &[]), tok("sub", -0.01, &[]), tok("-", 0.0, &[])];
        ts.push(tok("1", 0.0, &[]));
        ts.push(tok("0", 0.0, &[]));
        ts.push(tok("0", 0.8f64.ln(), &[("0", 0.8f64.ln()), ("1", 0.15f64.ln())]));
        ts.push(tok("2", 0.6f64.ln(), &[("2", 0.6f64.ln()), ("3", 0.3f64.ln()), ("5", 0.05f64.ln())]));
        ts.push(tok("0", 0.0, &[]));
        ts.push(tok("6", 0.0, &[]));
        ts.push(tok("\"}", 0.0, &[]));
        let text = "{\"label\": \"sub-100206\"}";
        let c = enum_choices(&schema, &json!({"label": "sub-100206"}), text, &ts);
        let base = (-0.01f64).exp();
        let m = [base * 0.8 * 0.6, base * 0.8 * 0.3, base * 0.15];
        let total: f64 = m.iter().sum();
        for (i, (o, p)) in c[0].options.iter().enumerate() {
            assert!((p - m[i] / total).abs() < 1e-12, "{o}: {p} against {}", m[i] / total);
        }
    }

    #[test]
    fn a_token_that_carries_the_quote_and_an_absent_option() {
        // `"HC` carries the quote before the value; `"AS` is not listed: it gets at most what the list leaves
        // out (1 − 0.9 − 0.06 = 0.04), bounded by the least listed alternative (0.06).
        let ts = [
            tok("{\"label\": ", -0.01, &[]),
            tok("\"HC", 0.9f64.ln(), &[("\"HC", 0.9f64.ln()), ("\"", 0.06f64.ln())]),
            tok("\"}", 0.0, &[]),
        ];
        let text = "{\"label\": \"HC\"}";
        let c = enum_choices(&schema(), &json!({"label": "HC"}), text, &ts);
        let p = &c[0].options;
        assert!((p[1].1 - 0.9 / 0.94).abs() < 1e-12 && (p[0].1 - 0.04 / 0.94).abs() < 1e-12, "{p:?}");
    }

    #[test]
    fn nothing_is_read_when_the_tokens_do_not_spell_the_text_or_list_no_alternatives() {
        let text = "{\"label\": \"HC\"}";
        let reply = json!({"label": "HC"});
        assert!(enum_choices(&schema(), &reply, text, &[tok("{\"label\": \"H", 0.0, &[])]).is_empty());
        assert!(enum_choices(&schema(), &reply, text, &[]).is_empty());
        let bare = [tok("{\"label\": \"", 0.0, &[]), tok("HC", -0.1, &[]), tok("\"}", 0.0, &[])];
        // The chosen token alone: the other option gets what is left (1 − 0.905) at most, bounded by it.
        let c = enum_choices(&schema(), &reply, text, &bare);
        assert!((c[0].options[1].1 - (-0.1f64).exp()).abs() < 0.01, "{c:?}");
        // Alternatives that begin no option: nothing counts for the chosen one → no choice.
        let other = [tok("{\"label\": \"", 0.0, &[]), tok("HC", -0.1, &[("maybe", -0.1)]), tok("\"}", 0.0, &[])];
        assert_eq!(enum_choices(&schema(), &reply, text, &other).len(), 1, "the chosen token itself is listed");
    }

    #[test]
    fn only_schemas_with_a_string_enum_ask_for_logprobs() {
        assert!(wanted(&ResponseFormat::JsonSchema { name: "x".into(), schema: schema() }));
        let plain = json!({"type": "object", "properties": {"n": {"type": "number"}, "k": {"enum": [1, 2]}}});
        assert!(!wanted(&ResponseFormat::JsonSchema { name: "x".into(), schema: plain }));
        assert!(!wanted(&ResponseFormat::JsonObject));
        let nested = json!({"properties": {"decision": {"properties": {"label": {"enum": ["ADHD", "HC"]}}}}});
        assert_eq!(
            enum_fields(&nested),
            vec![(vec!["decision".to_string(), "label".to_string()], vec!["ADHD".to_string(), "HC".to_string()])]
        );
    }
}
