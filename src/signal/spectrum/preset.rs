//! Named Welch + integration presets: YASA's, which the sleep stage power and `bandpower --yasa` use.

use super::bandpower::Integration;
use super::welch::{Average, WelchParams};
use super::window::Window;

/// YASA's convention (`yasa.bandpower`, `win_sec=4`): Hamming window, median averaging, 4-s segments at
/// `sample_rate` (unless `nperseg` is given), band power by Simpson's rule.
pub fn yasa(sample_rate: f64, nperseg: Option<usize>) -> (WelchParams, Integration) {
    let p = WelchParams {
        nperseg: Some(nperseg.unwrap_or((4.0 * sample_rate) as usize)),
        window: Window::Hamming,
        average: Average::Median,
        ..WelchParams::default()
    };
    (p, Integration::Simpson)
}
