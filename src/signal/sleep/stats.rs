//! Sleep statistics with YASA 0.8.1's definitions (`yasa.sleep_statistics(hypno, sf_hyp=1/30)`): durations
//! in minutes, latencies from the start of the recording, percentages of TST; plus the sleep fragmentation
//! index and 5-min persistent sleep onset of `yasa.Hypnogram.sleep_statistics`, the number of awakenings and
//! the stage-transition counts (`yasa.Hypnogram.transition_matrix`).

use super::hypnogram::{Hypnogram, Scale, Stage};
use crate::signal::error::SignalError;
use serde::Serialize;

/// Minutes unless noted; `None` where YASA gives NaN (no sleep, or a stage never reached).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(non_snake_case)]
pub struct SleepStats {
    pub TIB: f64,
    pub SPT: f64,
    pub WASO: Option<f64>,
    pub TST: f64,
    pub N1: f64,
    pub N2: f64,
    pub N3: f64,
    pub REM: f64,
    pub NREM: f64,
    /// Sleep onset latency: start → first sleep epoch.
    pub SOL: Option<f64>,
    /// Start → first 5 min of uninterrupted sleep.
    pub SOL_5min: Option<f64>,
    pub Lat_N1: Option<f64>,
    pub Lat_N2: Option<f64>,
    pub Lat_N3: Option<f64>,
    /// REM latency from the start of the recording (the AASM latency from sleep onset is Lat_REM − SOL).
    pub Lat_REM: Option<f64>,
    #[serde(rename = "%N1")]
    pub pct_N1: Option<f64>,
    #[serde(rename = "%N2")]
    pub pct_N2: Option<f64>,
    #[serde(rename = "%N3")]
    pub pct_N3: Option<f64>,
    #[serde(rename = "%REM")]
    pub pct_REM: Option<f64>,
    #[serde(rename = "%NREM")]
    pub pct_NREM: Option<f64>,
    /// Sleep efficiency TST/TIB (%).
    pub SE: f64,
    /// Sleep maintenance efficiency TST/SPT (%).
    pub SME: Option<f64>,
    /// Sleep fragmentation index: sleep → wake transitions per hour of TST.
    pub SFI: Option<f64>,
    /// Awakenings: sleep → wake transitions.
    pub awakenings: usize,
    /// Epoch-to-epoch stage changes.
    pub stage_transitions: usize,
    /// counts[from][to] over the stages present, in `transition_stages` order.
    pub transition_stages: Vec<&'static str>,
    pub transition_counts: Vec<Vec<usize>>,
    /// The hypnogram's stage names, for `to_json`.
    #[serde(skip)]
    pub scale: Scale,
}

impl SleepStats {
    /// The statistics as JSON in the scoring's own stage names, what every face shows (CLI, Recordings room,
    /// the agents' `hypnogram_stats`): for a four-stage scoring (`Scale::FourStage`) N2 reads Light and N3 Deep
    /// (`Light`, `%Light`, `Lat_Light`, …) and the N1 entries, which such a scoring never holds, are left out.
    pub fn to_json(&self) -> serde_json::Value {
        let v = serde_json::to_value(self).expect("numbers and strings");
        let serde_json::Value::Object(m) = v else { return v };
        if self.scale == Scale::Aasm {
            return serde_json::Value::Object(m);
        }
        let name = |k: &str| k.replace("N2", "Light").replace("N3", "Deep");
        m.into_iter()
            .filter(|(k, _)| !k.ends_with("N1"))
            .map(|(k, v)| match (k.as_str(), v) {
                ("transition_stages", serde_json::Value::Array(a)) => {
                    (k, a.into_iter().map(|x| x.as_str().map_or(x.clone(), |t| name(t).into())).collect())
                }
                (_, v) => (name(&k), v),
            })
            .collect()
    }
}

pub fn sleep_statistics(h: &Hypnogram) -> Result<SleepStats, SignalError> {
    let s = &h.stages;
    if s.len() < 2 {
        return Err("a hypnogram needs at least two epochs".into());
    }
    let per_min = 60.0 / h.epoch_s;
    let min = |n: usize| n as f64 / per_min;
    let sleep_idx: Vec<usize> = (0..s.len()).filter(|&i| s[i].code() > 0).collect();
    let has_sleep = !sleep_idx.is_empty();
    let spt: &[Stage] = if has_sleep { &s[sleep_idx[0]..=*sleep_idx.last().unwrap()] } else { &[] };
    let count = |st: Stage| s.iter().filter(|&&x| x == st).count();
    let tst_n = spt.iter().filter(|x| x.code() > 0).count();
    let tst = min(tst_n);
    let (n1, n2, n3, rem) =
        (min(count(Stage::N1)), min(count(Stage::N2)), min(count(Stage::N3)), min(count(Stage::Rem)));
    let nrem = n1 + n2 + n3;
    let first = |st: Stage| s.iter().position(|&x| x == st).map(min);
    let pct = |v: f64| has_sleep.then(|| 100.0 * v / tst);
    let awakenings = s.windows(2).filter(|w| w[0].is_sleep() && w[1] == Stage::Wake).count();
    // Persistent sleep: the first run of sleep epochs at least 5 minutes long (rounded up to whole epochs).
    let need = (5.0 * per_min - 1e-9).ceil() as usize;
    let mut sol5 = None;
    let mut run_start = 0;
    for i in 0..=s.len() {
        if i == s.len() || !s[i].is_sleep() {
            if i > run_start && i - run_start >= need {
                sol5 = Some(min(run_start));
                break;
            }
            run_start = i + 1;
        }
    }
    let present: Vec<Stage> = Stage::ALL.iter().copied().filter(|st| s.contains(st)).collect();
    let mut counts = vec![vec![0usize; present.len()]; present.len()];
    for w in s.windows(2) {
        let a = present.iter().position(|&x| x == w[0]).expect("present");
        let b = present.iter().position(|&x| x == w[1]).expect("present");
        counts[a][b] += 1;
    }
    Ok(SleepStats {
        TIB: min(s.len()),
        SPT: min(spt.len()),
        WASO: has_sleep.then(|| min(spt.iter().filter(|&&x| x == Stage::Wake).count())),
        TST: tst,
        N1: n1,
        N2: n2,
        N3: n3,
        REM: rem,
        NREM: nrem,
        SOL: sleep_idx.first().map(|&i| min(i)),
        SOL_5min: sol5,
        Lat_N1: first(Stage::N1),
        Lat_N2: first(Stage::N2),
        Lat_N3: first(Stage::N3),
        Lat_REM: first(Stage::Rem),
        pct_N1: pct(n1),
        pct_N2: pct(n2),
        pct_N3: pct(n3),
        pct_REM: pct(rem),
        pct_NREM: pct(nrem),
        SE: 100.0 * tst / min(s.len()),
        SME: has_sleep.then(|| 100.0 * tst / min(spt.len())),
        SFI: (has_sleep && tst > 0.0).then(|| awakenings as f64 / (tst / 60.0)),
        awakenings,
        stage_transitions: s.windows(2).filter(|w| w[0] != w[1]).count(),
        transition_stages: present.iter().map(|st| st.label()).collect(),
        transition_counts: counts,
        scale: h.scale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yasa_docstring_example() {
        // yasa.sleep_statistics([0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 2, 3, 3, 4, 4, 4, 4, 0, 0], sf_hyp=1/30):
        // TIB 10, SPT 8, WASO 0, TST 8, N1 1.5, N2 2, N3 2.5, REM 2, SOL 1, Lat_REM 7, SE 80, SME 100.
        let codes = [0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 2, 3, 3, 4, 4, 4, 4, 0, 0];
        let stages = codes.iter().map(|&c| Stage::ALL[(c + 2) as usize]).collect();
        let s = sleep_statistics(&Hypnogram { epoch_s: 30.0, stages, scale: Scale::Aasm }).unwrap();
        assert_eq!((s.TIB, s.SPT, s.WASO, s.TST), (10.0, 8.0, Some(0.0), 8.0));
        assert_eq!((s.N1, s.N2, s.N3, s.REM), (1.5, 2.0, 2.5, 2.0));
        assert_eq!((s.SOL, s.Lat_REM, s.SE, s.SME), (Some(1.0), Some(7.0), 80.0, Some(100.0)));
        assert_eq!(s.awakenings, 1);
        assert_eq!(s.stage_transitions, 7);
        assert_eq!(s.to_json(), serde_json::to_value(&s).unwrap(), "AASM names are the fields' own");
    }

    #[test]
    fn a_four_stage_scoring_shows_light_and_deep() {
        // SRI codes 0 Wake, 1 Light, 2 Deep, 3 REM: 1 Wake, 3 Light, 2 Deep, 2 REM epochs.
        let h = Hypnogram::from_text("0\n1\n1\n2\n2\n1\n3\n3\n", None, None, super::super::Codes::Sri).unwrap();
        let s = sleep_statistics(&h).unwrap();
        let j = s.to_json();
        assert_eq!((j["Light"].as_f64(), j["Deep"].as_f64(), j["REM"].as_f64()), (Some(1.5), Some(1.0), Some(1.0)));
        assert_eq!(j["%Deep"].as_f64(), Some(100.0 * 1.0 / 3.5));
        assert_eq!(j["Lat_Light"].as_f64(), Some(0.5));
        for gone in ["N1", "N2", "N3", "%N1", "%N2", "Lat_N1", "Lat_N3"] {
            assert!(j.get(gone).is_none(), "{gone} in {j}");
        }
        assert_eq!(j["NREM"].as_f64(), Some(2.5), "NREM keeps its name");
        assert_eq!(j["transition_stages"], serde_json::json!(["W", "Light", "Deep", "R"]));
    }
}
