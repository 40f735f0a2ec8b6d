//! The colour scales every table and chart uses (GUI, SVG, HTML alike): two continuous scales and a
//! qualitative palette for modules, networks, series and bands.

/// Blue–white–red around 0, saturating at ±`span`.
pub fn diverging(v: f64, span: f64) -> [u8; 3] {
    let t = if v.is_finite() { (v / span.max(1e-12)).clamp(-1.0, 1.0) } else { 0.0 };
    let (r, g, b) = if t >= 0.0 { (1.0, 1.0 - 0.75 * t, 1.0 - 0.8 * t) } else { (1.0 + 0.8 * t, 1.0 + 0.6 * t, 1.0) };
    [(r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8]
}

/// White → dark blue over [lo, hi].
pub fn sequential(v: f64, lo: f64, hi: f64) -> [u8; 3] {
    let t = if v.is_finite() { ((v - lo) / (hi - lo).max(1e-12)).clamp(0.0, 1.0) } else { 0.0 };
    [(255.0 - 225.0 * t) as u8, (255.0 - 170.0 * t) as u8, (255.0 - 95.0 * t) as u8]
}

/// A colour as `#rrggbb`.
pub fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// CSS text of a colour.
pub fn css([r, g, b]: [u8; 3]) -> String {
    format!("rgb({r},{g},{b})")
}

/// The qualitative palette (matplotlib's tab10): one colour per module, network, series or band.
pub const CATEGORY: [[u8; 3]; 10] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
    [23, 190, 207],
];

/// The palette's colour for index `k` (cycling).
pub fn category(k: usize) -> [u8; 3] {
    CATEGORY[k % CATEGORY.len()]
}
