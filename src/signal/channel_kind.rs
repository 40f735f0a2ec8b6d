//! A channel's type, named as MNE names it (`raw.get_channel_types()`): from the file where the format stores
//! it (FIF channel kinds, EEGLAB `chanlocs.type`, a BIDS `_channels.tsv`), otherwise from the label by the
//! one label rule here (EDF+'s "EEG Fp1" type prefixes, "EOG 061", "STI 014", …).

use serde::{Serialize, Serializer};

/// A channel type (MNE's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    Eeg,
    /// MEG magnetometer.
    Mag,
    /// MEG gradiometer.
    Grad,
    /// MEG reference sensor.
    RefMeg,
    Eog,
    Ecg,
    Emg,
    Stim,
    Resp,
    Bio,
    Seeg,
    Ecog,
    Dbs,
    Syst,
    Misc,
    Temperature,
    Gsr,
    /// FIF flux excitation, internal active shielding, head-position (cHPI), dipole and goodness-of-fit channels.
    Exci,
    Ias,
    Chpi,
    Dipole,
    Gof,
}

use ChannelKind::*;

const NAMES: [(ChannelKind, &str); 22] = [
    (Eeg, "eeg"),
    (Mag, "mag"),
    (Grad, "grad"),
    (RefMeg, "ref_meg"),
    (Eog, "eog"),
    (Ecg, "ecg"),
    (Emg, "emg"),
    (Stim, "stim"),
    (Resp, "resp"),
    (Bio, "bio"),
    (Seeg, "seeg"),
    (Ecog, "ecog"),
    (Dbs, "dbs"),
    (Syst, "syst"),
    (Misc, "misc"),
    (Temperature, "temperature"),
    (Gsr, "gsr"),
    (Exci, "exci"),
    (Ias, "ias"),
    (Chpi, "chpi"),
    (Dipole, "dipole"),
    (Gof, "gof"),
];

impl ChannelKind {
    /// MNE's name of the type (`eeg`, `mag`, `stim`, …).
    pub fn name(self) -> &'static str {
        NAMES.iter().find(|(k, _)| *k == self).map_or("misc", |(_, n)| n)
    }

    /// The type MNE names `name` (case-insensitive), if it is one of ours.
    pub fn parse(name: &str) -> Option<ChannelKind> {
        let n = name.trim().to_ascii_lowercase();
        NAMES.iter().find(|(_, m)| *m == n).map(|(k, _)| *k)
    }

    /// The type of a channel from its label alone: what a file that does not store types gets. An EDF+ type
    /// prefix first ("EEG Fp1", "Resp oro-nasal": the first word, as MNE's `read_raw_edf(infer_types=True)`
    /// reads it); then EOG (or EYE, as MNE's CNT reader)/ECG/EKG/EMG anywhere in the label; stimulus, status, trigger and event channels;
    /// respiration; temperature; the other recognisably non-scalp channels
    /// ([`is_non_eeg`]) are misc; the rest EEG.
    pub fn from_label(label: &str) -> ChannelKind {
        if let Some((prefix, rest)) = label.split_once(' ')
            && !rest.is_empty()
            && let Some(k) = edf_prefix(prefix)
        {
            return k;
        }
        let l = label.to_ascii_uppercase();
        let has = |keys: &[&str]| keys.iter().any(|k| l.contains(k));
        if has(&["EOG", "EYE"]) {
            Eog
        } else if has(&["ECG", "EKG"]) {
            Ecg
        } else if has(&["EMG"]) {
            Emg
        } else if has(&["STI", "STATUS", "TRIG", "EVENT"]) {
            Stim
        } else if has(&["RESP"]) {
            Resp
        } else if has(&["TEMP"]) {
            Temperature
        } else if is_non_eeg(label) {
            Misc
        } else {
            Eeg
        }
    }

    /// The BIDS-EEG `_channels.tsv` type: EEG, EOG, ECG, EMG, TRIG, RESP, TEMP, GSR or MISC.
    pub fn bids_type(self) -> &'static str {
        match self {
            Eeg => "EEG",
            Eog => "EOG",
            Ecg => "ECG",
            Emg => "EMG",
            Stim => "TRIG",
            Resp => "RESP",
            Temperature => "TEMP",
            Gsr => "GSR",
            _ => "MISC",
        }
    }

    /// The type a BIDS `_channels.tsv` type names (its EEG, MEG and physiological types).
    pub fn from_bids(t: &str) -> Option<ChannelKind> {
        Some(match t.trim().to_ascii_uppercase().as_str() {
            "EEG" => Eeg,
            "EOG" | "HEOG" | "VEOG" => Eog,
            "ECG" => Ecg,
            "EMG" => Emg,
            "TRIG" => Stim,
            "RESP" => Resp,
            "TEMP" => Temperature,
            "GSR" => Gsr,
            "MEGMAG" => Mag,
            "MEGGRADAXIAL" | "MEGGRADPLANAR" => Grad,
            "MEGREFMAG" | "MEGREFGRADAXIAL" | "MEGREFGRADPLANAR" => RefMeg,
            "SEEG" => Seeg,
            "ECOG" => Ecog,
            "DBS" => Dbs,
            "MISC" | "PPG" | "AUDIO" | "EYEGAZE" | "PUPIL" | "SYSCLOCK" | "REF" => Misc,
            _ => return None,
        })
    }
}

/// True when a label names a channel that is probably not scalp EEG (the label rule's last step).
fn is_non_eeg(label: &str) -> bool {
    let l = label.to_ascii_uppercase();
    [
        "EOG", "ECG", "EKG", "EMG", "RESP", "SAO2", "SPO2", "PULSE", "TEMP", "STI", "EVENT", "STATUS", "TRIG", "PLETH",
        "POS",
    ]
    .iter()
    .any(|k| l.contains(k))
}

/// The type an EDF+ label prefix names (MNE's `CH_TYPE_MAPPING` for EDF).
fn edf_prefix(word: &str) -> Option<ChannelKind> {
    Some(match word.to_ascii_uppercase().as_str() {
        "EEG" => Eeg,
        "SEEG" => Seeg,
        "ECOG" => Ecog,
        "DBS" => Dbs,
        "EOG" => Eog,
        "ECG" => Ecg,
        "EMG" => Emg,
        "BIO" | "SAO2" => Bio,
        "RESP" => Resp,
        "TEMP" => Temperature,
        "MISC" => Misc,
        "STIM" => Stim,
        _ => return None,
    })
}

/// The type of a FIF channel record: its kind, and for MEG its unit (T/m: gradiometer, else magnetometer),
/// as MNE's `channel_type`. Kinds we do not model (fNIRS, eye tracking, unknown codes) are misc.
pub fn from_fif(kind: i32, unit: i32) -> ChannelKind {
    const UNIT_T_M: i32 = 201;
    match kind {
        1 if unit == UNIT_T_M => Grad,
        1 => Mag,
        301 => RefMeg,
        2 => Eeg,
        3 => Stim,
        202 => Eog,
        302 => Emg,
        402 => Ecg,
        502 => Misc,
        602 => Resp,
        920 => Exci,
        910 => Ias,
        900 => Syst,
        802 => Seeg,
        803 => Dbs,
        102 => Bio,
        700..=709 => Chpi,
        1000 => Dipole,
        1001 => Gof,
        902 => Ecog,
        1200 => Temperature,
        1300 => Gsr,
        _ => Misc,
    }
}

impl Serialize for ChannelKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_names_and_bids_types() {
        assert_eq!(ChannelKind::from_label("EOG 061"), Eog);
        assert_eq!(ChannelKind::from_label("EEG Fp1"), Eeg);
        assert_eq!(ChannelKind::from_label("ECG ECG"), Ecg);
        assert_eq!(ChannelKind::from_label("STI 014"), Stim);
        assert_eq!(ChannelKind::from_label("Status"), Stim);
        assert_eq!(ChannelKind::from_label("Resp oro-nasal"), Resp);
        assert_eq!(ChannelKind::from_label("Temp rectal"), Temperature);
        assert_eq!(ChannelKind::from_label("Event marker"), Stim);
        assert_eq!(ChannelKind::from_label("EEG EOG-L"), Eeg);
        assert_eq!(ChannelKind::from_label("SaO2 finger"), Bio);
        assert_eq!(from_fif(1, 201), Grad);
        assert_eq!(from_fif(1, 112), Mag);
        assert_eq!(from_fif(3, 0), Stim);
        assert_eq!(from_fif(4242, 0), Misc);
        assert_eq!(ChannelKind::from_label("SaO2"), Misc);
        assert_eq!(ChannelKind::from_label("Fp1"), Eeg);
        for (k, n) in NAMES {
            assert_eq!(ChannelKind::parse(n), Some(k));
            assert_eq!(k.name(), n);
        }
        assert_eq!(ChannelKind::parse("EEG"), Some(Eeg));
        assert_eq!(ChannelKind::parse("scalp"), None);
        assert_eq!(Stim.bids_type(), "TRIG");
        assert_eq!(Grad.bids_type(), "MISC");
        assert_eq!(ChannelKind::from_bids("veog"), Some(Eog));
        assert_eq!(ChannelKind::from_bids("banana"), None);
    }
}
