//! What a delivered report may not say: the sentences that still claim work nothing did, or state a value
//! nothing measured, after the report was asked for again, are struck from it. Each stands replaced by a
//! marker naming what it claimed, so a reader sees that something was removed and why; the trace keeps the
//! report as the model wrote it and the struck claims. Measured: after the one re-ask, Qwen2.5-Coder-1.5B still
//! wrote such sentences in 4 of 54 BrainAgent reports (ee7d256); its CodeAct run of 32ec685, made before the
//! solution's re-ask existed, in 11 of 54 solutions.

use super::{Claim, Done, Work, ungrounded, values};

/// A report with its unsupported sentences struck, and the claims struck (in the order found).
#[derive(Debug, Clone, PartialEq)]
pub struct Struck {
    pub text: String,
    pub claims: Vec<Claim>,
}

/// How every marker opens (and `]` closes it): what [`unmarked`] takes out.
const MARK: &str = "[struck by BrainLens: ";

/// What stands where a sentence was struck: the kinds of work it claimed. It claims nothing itself (it
/// negates) and states no value.
pub fn marker(works: &[Work]) -> String {
    let names: Vec<&str> = works
        .iter()
        .map(|w| match w {
            Work::Value => "a value that no step or code output holds",
            other => other.name(),
        })
        .collect();
    format!("{MARK}a sentence that stated {} — no step or code did that]", names.join(" and "))
}

/// `report` without its markers: the model's own text, which the parser reads and the metrics score (a
/// marker is BrainLens's, not an answer: read as one, a report of markers alone passed for a refusal).
pub fn unmarked(report: &str) -> std::borrow::Cow<'_, str> {
    if !report.contains(MARK) {
        return report.into();
    }
    let mut out = String::with_capacity(report.len());
    let mut rest = report;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        rest = after.find(']').map_or("", |end| &after[end + 1..]);
    }
    out.push_str(rest);
    out.into()
}

/// `report` with every sentence [`ungrounded`] finds struck (checked again after each pass: the value check
/// names one sentence at a time). A sentence the check found but that cannot be located in the text (its
/// inline code was left out to read it) is struck with its whole line. What cannot be struck at all stays
/// and is still found by [`ungrounded`].
pub fn strike(report: &str, done: &Done, task: &str) -> Struck {
    let mut text = report.to_string();
    let mut claims: Vec<Claim> = Vec::new();
    // Each pass strikes at least one sentence, so there are at most as many passes as sentences.
    for _ in 0..=text.lines().count() + text.matches(". ").count() {
        let found = ungrounded(&text, done, task);
        let mut sentences: Vec<(&str, Vec<Work>)> = Vec::new();
        for c in &found {
            match sentences.iter_mut().find(|(s, _)| *s == c.sentence) {
                Some((_, works)) => works.push(c.work),
                None => sentences.push((c.sentence.as_str(), vec![c.work])),
            }
        }
        let mut changed = false;
        for (sentence, works) in &sentences {
            if let Some(next) = struck_once(&text, sentence, &marker(works)) {
                text = next;
                changed = true;
                claims.extend(found.iter().filter(|c| c.sentence == *sentence).cloned());
            }
        }
        if !changed {
            break;
        }
    }
    Struck { text, claims }
}

/// `text` with its first `sentence` (or, failing that, the line the value check read it from) replaced by
/// `marker`; `None` when neither is there.
fn struck_once(text: &str, sentence: &str, marker: &str) -> Option<String> {
    if sentence.is_empty() {
        return None;
    }
    if let Some(at) = text.find(sentence) {
        return Some(format!("{}{marker}{}", &text[..at], &text[at + sentence.len()..]));
    }
    let line = values::line_of(text, sentence)?;
    let at = text.find(line)?;
    Some(format!("{}{marker}{}", &text[..at], &text[at + line.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped Qwen runs' own sentences: a PSD no step computed, a resampling and a re-reference in one
    /// list, a made-up heart rate; what ran and what was measured stays word for word.
    #[test]
    fn claims_nothing_supports_are_struck_and_the_rest_stays() {
        let done = Done { works: [Work::Load].into_iter().collect(), values: vec![8.0, 13.0, 0.42] };
        let task = "Compute the relative power of the 8.0-13.0 Hz band.";
        let report = "The data file was loaded. The Welch PSD was computed for each channel, and the relative \
                      power was calculated. The ratio is 0.42.\nMean heart rate: 72.5 bpm";
        let s = strike(report, &done, task);
        assert_eq!(
            s.text,
            format!(
                "The data file was loaded. {}. The ratio is 0.42.\n{}",
                marker(&[Work::Spectrum]),
                marker(&[Work::Value])
            )
        );
        assert_eq!(s.claims.iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Spectrum, Work::Value]);
        assert!(ungrounded(&s.text, &done, task).is_empty(), "{}", s.text);
        assert_eq!(unmarked(&s.text), "The data file was loaded. . The ratio is 0.42.\n");
        assert_eq!(unmarked("no marker [here]"), "no marker [here]");
        // One sentence with two claims gets one marker naming both.
        let both = strike("The channel was band-pass filtered and epoched around each event.", &done, "");
        assert_eq!(both.text, format!("{}.", marker(&[Work::Filter, Work::Epochs])));
        assert_eq!(both.claims.len(), 2);
        // A grounded report is left as it is.
        let fine = "The data file was loaded. The ratio is 0.42.";
        assert_eq!(strike(fine, &done, task), Struck { text: fine.into(), claims: vec![] });
    }

    /// A value read with the line's inline code left out is struck with its line.
    #[test]
    fn a_value_beside_inline_code_is_struck_with_its_line() {
        let done = Done::default();
        let s = strike("Intro.\n- The rate `hr` is 72.5 bpm\nEnd.", &done, "");
        assert_eq!(s.text, format!("Intro.\n{}\nEnd.", marker(&[Work::Value])));
    }
}
