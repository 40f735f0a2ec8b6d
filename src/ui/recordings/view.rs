//! What the Recordings room shows of a recording: window, page length, gain, channel order and
//! visibility, montage, display filters.

use crate::signal::filter::display::DisplayFilter;
use crate::signal::montage::Montage;
use crate::signal::page::Trace;

/// Page lengths offered, in seconds.
pub const PAGE_LENGTHS: [f64; 6] = [1.0, 5.0, 10.0, 20.0, 30.0, 60.0];

/// Sensitivities offered by the +/- keys, in µV per mm (clinical EEG reads at 7 µV/mm).
pub const SENSITIVITIES: [f64; 22] = [
    0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 70.0, 100.0, 150.0, 200.0, 300.0, 500.0,
    1000.0, 2000.0, 5000.0,
];

/// Logical points per millimetre at the 96-dpi reference density egui assumes.
pub const POINTS_PER_MM: f64 = 96.0 / 25.4;

/// The view of one open recording.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewState {
    pub start_s: f64,
    pub page_s: f64,
    /// Global sensitivity in µV/mm (other units: units/mm).
    pub sensitivity: f64,
    pub montage: Montage,
    pub filter: DisplayFilter,
    pub epoch_grid: bool,
    /// Per derivation of the current montage: gain factor, shown or not, in display order.
    pub gain: Vec<f64>,
    pub visible: Vec<bool>,
    pub order: Vec<usize>,
}

impl ViewState {
    /// A view of `n` derivations starting at 0 s.
    pub fn new(n: usize, page_s: f64, filter: DisplayFilter, epoch_grid: bool) -> Self {
        Self {
            start_s: 0.0,
            page_s,
            sensitivity: 7.0,
            montage: Montage::AsRecorded,
            filter,
            epoch_grid,
            gain: vec![1.0; n],
            visible: vec![true; n],
            order: (0..n).collect(),
        }
    }

    /// Resets per-derivation settings after a montage change to `n` derivations.
    pub fn reset_channels(&mut self, n: usize) {
        self.gain = vec![1.0; n];
        self.visible = vec![true; n];
        self.order = (0..n).collect();
    }

    /// Derivation indices to draw, top to bottom.
    pub fn shown(&self) -> Vec<usize> {
        self.order.iter().copied().filter(|&i| self.visible.get(i).copied().unwrap_or(false)).collect()
    }

    /// Moves the window by `pages` pages, kept inside `[0, duration - page]`.
    pub fn page_by(&mut self, pages: f64, duration_s: f64) {
        self.go_to(self.start_s + pages * self.page_s, duration_s);
    }

    /// Puts the window start at `t`, kept inside the recording.
    pub fn go_to(&mut self, t: f64, duration_s: f64) {
        let max = (duration_s - self.page_s).max(0.0);
        self.start_s = t.clamp(0.0, max);
    }

    /// One step more (`+1`, larger traces: smaller µV/mm) or less sensitive (`-1`).
    pub fn step_sensitivity(&mut self, steps: i32) {
        let i =
            SENSITIVITIES.iter().position(|&s| s >= self.sensitivity - 1e-9).unwrap_or(SENSITIVITIES.len() - 1) as i32;
        let j = (i - steps).clamp(0, SENSITIVITIES.len() as i32 - 1);
        self.sensitivity = SENSITIVITIES[j as usize];
    }
}

/// Factor from a physical unit to µV, so one sensitivity serves µV, mV and V channels; other units are
/// drawn in their own unit per mm.
pub fn to_microvolts(unit: &str) -> f64 {
    match unit.trim() {
        "uV" | "µV" | "μV" => 1.0,
        "mV" => 1e3,
        "V" => 1e6,
        "nV" => 1e-3,
        _ => 1.0,
    }
}

/// A sensitivity at which the median trace's 5–95 % range fills about one row of `row_mm` millimetres.
pub fn auto_sensitivity(traces: &[Trace], row_mm: f64) -> f64 {
    let mut spans: Vec<f64> = traces
        .iter()
        .filter_map(|t| {
            let mut v: Vec<f32> =
                t.runs.iter().flat_map(|r| r.values.iter().copied()).filter(|x| x.is_finite()).collect();
            if v.len() < 2 {
                return None;
            }
            v.sort_by(f32::total_cmp);
            let (lo, hi) = (v[v.len() / 20], v[v.len() * 19 / 20]);
            Some((hi - lo) as f64 * to_microvolts(&t.unit))
        })
        .filter(|s| *s > 0.0)
        .collect();
    if spans.is_empty() {
        return 7.0;
    }
    spans.sort_by(f64::total_cmp);
    let want = spans[spans.len() / 2] / row_mm.max(1.0);
    SENSITIVITIES.iter().copied().find(|&s| s >= want).unwrap_or(*SENSITIVITIES.last().unwrap_or(&7.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_stays_inside_the_recording() {
        let mut v = ViewState::new(2, 10.0, DisplayFilter::default(), false);
        v.page_by(1.0, 24.0);
        assert_eq!(v.start_s, 10.0);
        v.page_by(1.0, 24.0);
        assert_eq!(v.start_s, 14.0);
        v.page_by(-5.0, 24.0);
        assert_eq!(v.start_s, 0.0);
    }

    #[test]
    fn sensitivity_steps() {
        let mut v = ViewState::new(1, 10.0, DisplayFilter::default(), false);
        v.step_sensitivity(1);
        assert_eq!(v.sensitivity, 5.0);
        v.step_sensitivity(-2);
        assert_eq!(v.sensitivity, 10.0);
    }
}
