//! Montages: which derivations are drawn. As recorded, common average reference, or bipolar chains
//! (with the classic longitudinal "double banana" preset when 10-20 labels are present).

use super::Channel;
use super::channel_kind::ChannelKind;
use crate::signal::error::{SignalError, invalid};
use serde::{Deserialize, Serialize};

/// A displayed trace: a weighted sum of recorded channels (indices into `Recording::channels`).
#[derive(Debug, Clone, PartialEq)]
pub struct Derivation {
    pub label: String,
    pub terms: Vec<(usize, f64)>,
}

/// How recorded channels become displayed traces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub enum Montage {
    /// Each channel as it was recorded.
    #[default]
    AsRecorded,
    /// Each EEG channel minus the mean of all EEG channels of the same sample rate (by `Channel::kind`: the
    /// file's own types where it stores them; EOG/ECG/EMG and other non-EEG channels are left as recorded).
    AverageReference,
    /// User pairs of labels "A-B", drawn as A minus B.
    Bipolar(Vec<(String, String)>),
}

/// Longitudinal bipolar "double banana" (ACNS guideline 3 order): left temporal, right temporal, left
/// parasagittal, right parasagittal, midline.
pub const DOUBLE_BANANA: [(&str, &str); 18] = [
    ("Fp1", "F7"),
    ("F7", "T7"),
    ("T7", "P7"),
    ("P7", "O1"),
    ("Fp2", "F8"),
    ("F8", "T8"),
    ("T8", "P8"),
    ("P8", "O2"),
    ("Fp1", "F3"),
    ("F3", "C3"),
    ("C3", "P3"),
    ("P3", "O1"),
    ("Fp2", "F4"),
    ("F4", "C4"),
    ("C4", "P4"),
    ("P4", "O2"),
    ("Fz", "Cz"),
    ("Cz", "Pz"),
];

/// Old 10-20 names of the temporal electrodes and their current ones.
const ALIASES: [(&str, &str); 4] = [("T3", "T7"), ("T4", "T8"), ("T5", "P7"), ("T6", "P8")];

/// The 10-20 name a channel label stands for: "EEG Fp1-REF" → "FP1"; old names mapped to new.
pub fn electrode_name(label: &str) -> String {
    let mut l = label.trim().to_ascii_uppercase();
    for prefix in ["EEG ", "EEG-", "EEG"] {
        if let Some(rest) = l.strip_prefix(prefix) {
            l = rest.trim().to_string();
            break;
        }
    }
    for suffix in ["-REF", "-AVG", "-A1", "-A2", "-M1", "-M2", "-LE", "-CZ"] {
        if let Some(rest) = l.strip_suffix(suffix) {
            l = rest.to_string();
            break;
        }
    }
    for (old, new) in ALIASES {
        if l == old.to_ascii_uppercase() {
            return new.to_ascii_uppercase();
        }
    }
    l
}

fn find(channels: &[Channel], name: &str) -> Option<usize> {
    let want = electrode_name(name);
    channels.iter().position(|c| electrode_name(&c.label) == want)
}

/// The double-banana pairs this recording can show (both electrodes present), or `None` if fewer than
/// half of them are.
pub fn double_banana(channels: &[Channel]) -> Option<Vec<(String, String)>> {
    let pairs: Vec<(String, String)> = DOUBLE_BANANA
        .iter()
        .filter(|(a, b)| find(channels, a).is_some() && find(channels, b).is_some())
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    (pairs.len() * 2 >= DOUBLE_BANANA.len()).then_some(pairs)
}

impl Montage {
    /// Short name for menus.
    pub fn name(&self) -> &'static str {
        match self {
            Montage::AsRecorded => "As recorded",
            Montage::AverageReference => "Average reference",
            Montage::Bipolar(_) => "Bipolar",
        }
    }

    /// The traces to draw for `channels`. Bipolar pairs whose labels are missing, or whose channels differ
    /// in sample rate, are returned in the error list instead.
    pub fn derivations(&self, channels: &[Channel]) -> (Vec<Derivation>, Vec<String>) {
        match self {
            Montage::AsRecorded => (
                channels
                    .iter()
                    .enumerate()
                    .map(|(i, c)| Derivation { label: c.label.clone(), terms: vec![(i, 1.0)] })
                    .collect(),
                vec![],
            ),
            Montage::AverageReference => {
                let out = channels
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        if c.kind != ChannelKind::Eeg {
                            return Derivation { label: c.label.clone(), terms: vec![(i, 1.0)] };
                        }
                        let group: Vec<usize> = (0..channels.len())
                            .filter(|&k| {
                                channels[k].kind == ChannelKind::Eeg && channels[k].sample_rate == c.sample_rate
                            })
                            .collect();
                        let w = 1.0 / group.len() as f64;
                        let mut terms: Vec<(usize, f64)> = group.iter().map(|&k| (k, -w)).collect();
                        if let Some(t) = terms.iter_mut().find(|t| t.0 == i) {
                            t.1 += 1.0;
                        }
                        Derivation { label: format!("{}-AVG", c.label), terms }
                    })
                    .collect();
                (out, vec![])
            }
            Montage::Bipolar(pairs) => {
                let mut out = Vec::new();
                let mut errors = Vec::new();
                for (a, b) in pairs {
                    match (find(channels, a), find(channels, b)) {
                        (Some(i), Some(j)) if channels[i].sample_rate == channels[j].sample_rate => {
                            out.push(Derivation { label: format!("{a}-{b}"), terms: vec![(i, 1.0), (j, -1.0)] })
                        }
                        (Some(_), Some(_)) => errors.push(format!("{a}-{b}: sample rates differ")),
                        _ => errors.push(format!(
                            "{a}-{b}: no channel named {}",
                            if find(channels, a).is_none() { a } else { b }
                        )),
                    }
                }
                (out, errors)
            }
        }
    }
}

/// Parses "Fp1-F3, F3-C3" into label pairs.
pub fn parse_chain(text: &str) -> Result<Vec<(String, String)>, SignalError> {
    let pairs: Result<Vec<_>, SignalError> = text
        .split([',', ';', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
                Ok((a.trim().to_string(), b.trim().to_string()))
            }
            _ => Err(invalid!("'{p}' is not a pair like Fp1-F3")),
        })
        .collect();
    let pairs = pairs?;
    if pairs.is_empty() {
        return Err("type pairs like Fp1-F3, F3-C3".into());
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(label: &str, fs: f64) -> Channel {
        Channel {
            signal: 0,
            label: label.into(),
            sample_rate: fs,
            physical_dimension: "uV".into(),
            kind: ChannelKind::from_label(label),
        }
    }

    #[test]
    fn labels_normalise_to_electrodes() {
        assert_eq!(electrode_name("EEG Fp1-REF"), "FP1");
        assert_eq!(electrode_name("T3"), "T7");
        assert_eq!(electrode_name("EEG 001"), "001");
    }

    #[test]
    fn average_reference_excludes_eog() {
        let chans = vec![ch("Fz", 250.0), ch("Cz", 250.0), ch("EOG 061", 250.0), ch("Pz", 250.0)];
        let (d, _) = Montage::AverageReference.derivations(&chans);
        assert_eq!(d[2].terms, vec![(2, 1.0)]);
        let w: f64 = d[0].terms.iter().map(|t| t.1).sum();
        assert!(w.abs() < 1e-12, "weights of an average-referenced channel sum to zero");
        assert_eq!(d[0].terms.len(), 3);
    }

    #[test]
    fn double_banana_needs_ten_twenty_labels() {
        let names = [
            "Fp1", "Fp2", "F7", "F8", "T3", "T4", "T5", "T6", "O1", "O2", "F3", "F4", "C3", "C4", "P3", "P4", "Fz",
            "Cz", "Pz",
        ];
        let chans: Vec<Channel> = names.iter().map(|n| ch(n, 256.0)).collect();
        let pairs = double_banana(&chans).unwrap();
        assert_eq!(pairs.len(), 18);
        let (d, errors) = Montage::Bipolar(pairs).derivations(&chans);
        assert!(errors.is_empty());
        assert_eq!(d[1].label, "F7-T7");
        assert!(double_banana(&[ch("EEG 001", 250.0)]).is_none());
    }
}
