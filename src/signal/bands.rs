//! The one named EEG band table, and band arguments (`alpha` or `8-12`) read against it.
//!
//! The edges are YASA's (`yasa.bandpower`'s default bands): delta 0.5–4, theta 4–8, alpha 8–12, sigma
//! 12–16, beta 16–30, gamma 30–40 Hz. Alpha is 8–12 Hz, not the IFCN glossary's 8–13 Hz, because YASA and
//! MNE's tutorials (the references the app's sleep and spectrum numbers are checked against) use 8–12, and
//! because the table keeps sigma (spindles, 12–16 Hz) apart from alpha. A task that states other edges in
//! its text (the local BrainBench suite's "alpha 8-13 Hz") carries them as its own parameters; the Spectrum
//! panel lets the user edit the edges.

use crate::signal::error::{SignalError, invalid};
/// A named frequency band; both edges included, as `band_power` integrates them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Band {
    pub name: String,
    pub lo: f64,
    pub hi: f64,
}

/// The table: (name, low edge, high edge) in Hz.
pub const BANDS: [(&str, f64, f64); 6] = [
    ("delta", 0.5, 4.0),
    ("theta", 4.0, 8.0),
    ("alpha", 8.0, 12.0),
    ("sigma", 12.0, 16.0),
    ("beta", 16.0, 30.0),
    ("gamma", 30.0, 40.0),
];

/// The table as `Band`s.
pub fn table() -> Vec<Band> {
    BANDS.iter().map(|(n, lo, hi)| Band { name: n.to_string(), lo: *lo, hi: *hi }).collect()
}

/// The table up to beta (no gamma): what sleep stage band power uses unless bands are given, as YASA's
/// sleep examples do.
pub fn to_beta() -> Vec<(f64, f64)> {
    BANDS.iter().take_while(|(n, _, _)| *n != "gamma").map(|(_, lo, hi)| (*lo, *hi)).collect()
}

/// The edges of the band named `name` (case-insensitive).
pub fn named(name: &str) -> Option<(f64, f64)> {
    BANDS.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(name.trim())).map(|(_, lo, hi)| (*lo, *hi))
}

/// A band argument: a name from the table (`alpha`) or `LO-HI` in Hz (`8-13`), with 0 ≤ LO < HI.
pub fn parse(text: &str) -> Result<(f64, f64), SignalError> {
    if let Some(edges) = named(text) {
        return Ok(edges);
    }
    let names = BANDS.map(|b| b.0).join(", ");
    let (a, b) = text
        .split_once('-')
        .ok_or_else(|| invalid!("band {text:?}: expected LO-HI in Hz (e.g. 8-12) or one of {names}"))?;
    let edge = |s: &str, which: &str| {
        s.trim().parse::<f64>().map_err(|_| format!("band {text:?}: the {which} edge {:?} is not a number", s.trim()))
    };
    let (lo, hi) = (edge(a, "low")?, edge(b, "high")?);
    if !(0.0 <= lo && lo < hi && hi.is_finite()) {
        return Err(invalid!("band {text:?}: need 0 ≤ LO < HI"));
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_contiguous_and_names_parse() {
        for w in BANDS.windows(2) {
            assert_eq!(w[0].2, w[1].1, "{} ends where {} starts", w[0].0, w[1].0);
        }
        assert_eq!(parse("Alpha").ok(), Some((8.0, 12.0)));
        assert_eq!(parse("8-13").ok(), Some((8.0, 13.0)));
        assert_eq!(parse(" 0.5 - 4 ").ok(), Some((0.5, 4.0)));
        assert!(parse("12-8").unwrap_err().to_string().contains("LO < HI"));
        assert!(parse("mu").unwrap_err().to_string().contains("delta, theta, alpha"));
        assert!(parse("8-x").unwrap_err().to_string().contains("high edge"));
        assert_eq!(to_beta(), [(0.5, 4.0), (4.0, 8.0), (8.0, 12.0), (12.0, 16.0), (16.0, 30.0)]);
    }
}
