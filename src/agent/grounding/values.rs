//! Values a report states that nothing the agent saw holds. Every number a report writes as a value is looked
//! for among the numbers of its task and of what the agent was shown (BrainAgent: the steps' arguments, outputs
//! and errors, the shared state before each round, the report prompt's measured results; CodeAct: the code
//! that ran and every observation): as written, rounded or cut to the report's decimals, to six significant
//! digits, or scaled by a unit (× or ÷ 100, 1000, 60). A number found nowhere is a value no step measured: a
//! model's invention presented as a result (seen with Qwen2.5-Coder-1.5B: "The mean heart rate of the ECG is
//! 72 bpm, and the RMSSD is 0.12" for a file that does not exist).
//!
//! Not values: a number inside a word ("Fp1", "r1", "case1_1"), a version ("MNE 1.14.0"), a list's numbering,
//! the integers 0 to 10 ("2 channels", "step 3", the "EEG 0" of a report cut short), and numbers in code (a
//! fenced block, `inline code`, a line that assigns, returns, imports or comments — a Markdown heading too).

/// A number as a report writes it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Written {
    value: f64,
    decimals: i32,
}

/// Units a report may have turned a measured value into: percent and fraction, milli-, minutes and seconds.
const SCALES: [f64; 7] = [1.0, 100.0, 0.01, 1000.0, 0.001, 60.0, 1.0 / 60.0];

/// One number starting at byte `start` of `s` (digits, decimals, an exponent): its value, its decimals and
/// where it ends. The sign is not read: values are compared by magnitude.
fn number_at(s: &str, start: usize) -> (Written, usize) {
    let b = s.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut end = digits(start);
    let mut decimals = 0;
    if end + 1 < b.len() && b[end] == b'.' && b[end + 1].is_ascii_digit() {
        let frac_end = digits(end + 1);
        decimals = (frac_end - end - 1) as i32;
        end = frac_end;
    }
    if end + 1 < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exp_start = end + 1 + sign;
        if b.get(exp_start).is_some_and(u8::is_ascii_digit) {
            let exp_end = digits(exp_start);
            // Saturating: a model may write any exponent ("1e-99999999999").
            let exp: i32 = s[exp_start..exp_end].parse().unwrap_or(i32::MAX);
            decimals = if b[end + 1] == b'-' { decimals.saturating_add(exp) } else { decimals.saturating_sub(exp) };
            end = exp_end;
        }
    }
    let value = s[start..end].parse::<f64>().unwrap_or(f64::NAN);
    (Written { value, decimals: decimals.max(0) }, end)
}

/// Every number of `text` in order, with the byte range it spans; a number's digits never start another
/// ("1.14.0" is 1.14 then 0, read after the point, which `stated` leaves out as inside a word).
fn numbers(text: &str) -> impl Iterator<Item = (usize, Written, usize)> + '_ {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && !b[i].is_ascii_digit() {
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        let start = i;
        let (w, end) = number_at(text, start);
        i = end.max(start + 1);
        Some((start, w, end))
    })
}

/// Every number in `text`, those inside identifiers too ("EEG 025", "sbj10", "1.2e-05"): what a report may
/// cite from its sources.
pub fn values_in(text: &str) -> Vec<f64> {
    numbers(text).map(|(_, w, _)| w.value.abs()).filter(|v| v.is_finite()).collect()
}

/// The numbers a piece of prose states as values (see the module's list of what is not one).
fn stated(prose: &str) -> Vec<Written> {
    let b = prose.as_bytes();
    let is_value = |&(start, w, end): &(usize, Written, usize)| {
        let inside_word =
            prose[..start].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        let next = prose[end..].chars().next();
        let version = next == Some('.') && b.get(end + 1).is_some_and(u8::is_ascii_digit);
        let joined = next == Some('_');
        let small = w.decimals == 0 && w.value <= 10.0;
        !(inside_word || version || joined || small) && w.value.is_finite()
    };
    numbers(prose).filter(is_value).map(|(_, w, _)| w).collect()
}

/// Whether `seen` holds `w`: equal to its decimals (rounded or cut), to six significant digits, or in one of
/// `SCALES`. A zero ("0.00 %") is found only as itself, rounded: a small value scaled down is not one.
fn found(w: Written, seen: &[f64]) -> bool {
    let x = w.value.abs();
    let step = 10f64.powi(-w.decimals);
    let scales = if x == 0.0 { &SCALES[..1] } else { &SCALES[..] };
    seen.iter().any(|&v| {
        scales.iter().any(|&s| {
            let t = (v * s).abs();
            let rounded = (x - t).abs() <= 0.5 * step * (1.0 + 1e-9);
            let cut = t >= x && t - x < step;
            rounded || cut || (x - t).abs() <= 1e-6 * t
        })
    })
}

/// Whether `seen` holds the number the JSON text `number` writes (its decimals are the text's), as [`found`]
/// holds a report's value: how a parsed answer is looked for among what the agent was shown.
pub fn held(number: &serde_json::Number, seen: &[f64]) -> bool {
    let text = number.to_string();
    let (w, _) = number_at(text.trim_start_matches('-'), 0);
    w.value.is_finite() && found(w, seen)
}

/// Whether a line is code: it comments, imports, returns, prints, defines or assigns (`n_fft = 2048`), or is
/// a kernel's block marker.
fn code_like(line: &str) -> bool {
    let t = line.trim_start();
    let starts = ["#", ">>>", "<block", "import ", "from ", "return ", "print(", "def "];
    if starts.iter().any(|p| t.starts_with(p)) {
        return true;
    }
    let name_end = t.find(|c: char| !(c.is_alphanumeric() || "_.[]'\"".contains(c))).unwrap_or(t.len());
    let rest = t[name_end..].trim_start();
    name_end > 0 && rest.starts_with('=') && !rest.starts_with("==")
}

/// `line` without a list's marker ("11. ", "3) ", "- ").
fn without_numbering(line: &str) -> &str {
    let t = line.trim_start();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let rest = &t[digits..];
    if digits > 0 && (rest.starts_with(". ") || rest.starts_with(") ")) {
        return &rest[2..];
    }
    t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).unwrap_or(t)
}

/// `line` with its `inline code` spans left out.
fn without_inline_code(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The first sentence of `report` that states a value `seen` does not hold, outside code.
pub fn unmeasured_value(report: &str, seen: &[f64]) -> Option<String> {
    let mut fenced = false;
    for line in report.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || code_like(line) {
            continue;
        }
        let prose = without_inline_code(without_numbering(line));
        for sentence in super::sentences(&prose) {
            if stated(sentence).into_iter().any(|w| !found(w, seen)) {
                return Some(sentence.to_string());
            }
        }
    }
    None
}

/// The line of `report` that [`unmeasured_value`] read `sentence` from (outside code, its list marker and
/// inline code left out), when the sentence is not in the report as it stands.
pub fn line_of<'a>(report: &'a str, sentence: &str) -> Option<&'a str> {
    report.lines().find(|line| {
        !code_like(line) && super::sentences(&without_inline_code(without_numbering(line))).contains(&sentence)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(s: &str) -> Vec<f64> {
        stated(s).into_iter().map(|w| w.value).collect()
    }

    #[test]
    fn numbers_that_are_values_and_numbers_that_are_not() {
        assert_eq!(values("The mean heart rate is 72 bpm and the RMSSD 0.12."), [72.0, 0.12]);
        assert_eq!(values("Channel Fp1 in r1 of case1_1, MNE 1.14.0, 2 channels, step 10, EEG 0"), Vec::<f64>::new());
        assert_eq!(values("The alpha power is 23.4 % (1.2e-05 V²)."), [23.4, 1.2e-5]);
        assert_eq!(unmeasured_value("11. The alpha power is 23.4 %.\n12) It is 1.2e-05.", &[23.4, 1.2e-5]), None);
        assert_eq!(values("Band-pass 0.5-40.0 Hz"), [0.5, 40.0]);
        // Whatever a model writes, nothing panics: huge exponents, a trailing point, digits of other scripts.
        for odd in ["1.5e-99999999999", "2e99999999999 µV", "1.23456789e-2147483647", "12.", ".5", "٣٤ Hz", "1e", "7e+"]
        {
            let _ = unmeasured_value(odd, &values_in(odd));
        }
        assert_eq!(
            values_in("EEG 025, sbj10.csv, 1.2e-05, 2758.2839999999997"),
            [25.0, 10.0, 1.2e-5, 2758.2839999999997]
        );
    }

    /// Rounded, cut, to six digits, or in another unit: found. Nowhere near: not.
    #[test]
    fn a_value_is_found_as_written_rounded_or_in_another_unit() {
        let seen = [23.4187, 0.8512, 2758.2839999999997, 0.0312, 228.0];
        for (report, ok) in [
            ("23.42", true),
            ("23.4", true),
            ("23", true),
            ("85.12 %", true),
            ("85 %", true),
            ("2758.2839999999987 ms", true),
            ("31.2 ms", true),
            ("3.8 h", true),
            ("228.0 minutes", true),
            ("23.5", false),
            ("72 bpm", false),
            ("0.12", false),
            ("0.00 %", false),
        ] {
            let w = stated(report);
            assert_eq!(w.len(), 1, "{report}");
            assert_eq!(found(w[0], &seen), ok, "{report}");
        }
    }

    /// The ECG report Qwen2.5-Coder-1.5B wrote for a missing file is caught; the same report with the measured
    /// values, and code that states parameters, are not.
    #[test]
    fn an_invented_value_is_caught_and_code_is_left_alone() {
        let seen = values_in("Load the data file: data/ecg/missing.edf. Report the mean heart rate as hr_bpm.");
        let invented =
            "The recording could not be read.\nThe mean heart rate of the ECG is 72 bpm, and the RMSSD is 0.12.";
        assert_eq!(
            unmeasured_value(invented, &seen).as_deref(),
            Some("The mean heart rate of the ECG is 72 bpm, and the RMSSD is 0.12")
        );
        let measured = values_in("{\"hr_bpm\": 71.63, \"rmssd_ms\": 118.7}");
        assert_eq!(unmeasured_value("The mean heart rate is 71.6 bpm; the RMSSD is 0.1187 s.", &measured), None);
        let code = "```python\nraw.filter(0.5, 40.0)\n```\nn_fft = 2048\n# 50.\nThe window was `n_per_seg=512`.";
        assert_eq!(unmeasured_value(code, &[]), None);
    }
}
