//! Scalp maps: electrode positions (a recording's own CSV, or MNE's standard 10-20 table for 10-20 labels)
//! fitted with a sphere, projected azimuthally about the vertex (the equator at radius 1, as MNE draws the
//! head outline), and a value per electrode interpolated on a grid by inverse-distance weighting.

use super::montage::electrode_name;
use crate::signal::error::{SignalError, invalid};
use serde::Serialize;
use std::path::Path;

/// MNE's `standard_1020` positions (metres, head frame), bundled.
const STANDARD_1020: &str = include_str!("../../assets/montages/standard_1020.csv");

/// Positions by label from a `channel,x,y,z` CSV text (metres).
pub fn parse_positions(text: &str) -> Result<Vec<(String, [f64; 3])>, SignalError> {
    let mut out = Vec::new();
    for r in crate::util::csv_text::records(text).map_err(|e| invalid!("{e}"))?.iter().skip(1) {
        let num =
            |k: usize| r.get(k).parse::<f64>().map_err(|_| invalid!("line {}: bad coordinate '{}'", r.line, r.get(k)));
        out.push((r.get(0).to_string(), [num(1)?, num(2)?, num(3)?]));
    }
    Ok(out)
}

pub fn load_positions(path: &Path) -> Result<Vec<(String, [f64; 3])>, SignalError> {
    let text = std::fs::read_to_string(path).map_err(|e| invalid!("{}: {e}", path.display()))?;
    parse_positions(&text).map_err(|e| invalid!("{}: {e}", path.display()))
}

/// Position of each label: from `own` (exact label) or, failing that, the standard 10-20 table by electrode
/// name. `None` for labels with neither.
pub fn positions_for(labels: &[String], own: Option<&[(String, [f64; 3])]>) -> Vec<Option<[f64; 3]>> {
    let standard = parse_positions(STANDARD_1020).unwrap_or_default();
    labels
        .iter()
        .map(|l| {
            own.and_then(|o| o.iter().find(|(n, _)| n == l).map(|(_, p)| *p)).or_else(|| {
                let name = electrode_name(l);
                standard.iter().find(|(n, _)| n.eq_ignore_ascii_case(&name)).map(|(_, p)| *p)
            })
        })
        .collect()
}

/// Least-squares sphere through the points: |p|² = 2c·p + (r² − |c|²).
fn fit_sphere(points: &[[f64; 3]]) -> ([f64; 3], f64) {
    let mut ata = [[0.0; 4]; 4];
    let mut atb = [0.0; 4];
    for p in points {
        let row = [2.0 * p[0], 2.0 * p[1], 2.0 * p[2], 1.0];
        let b = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        for i in 0..4 {
            for j in 0..4 {
                ata[i][j] += row[i] * row[j];
            }
            atb[i] += row[i] * b;
        }
    }
    // Gauss–Jordan on the 4×4 normal equations.
    let mut m: Vec<Vec<f64>> = (0..4)
        .map(|i| {
            let mut r = ata[i].to_vec();
            r.push(atb[i]);
            r
        })
        .collect();
    for c in 0..4 {
        let piv = (c..4).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs())).unwrap_or(c);
        m.swap(c, piv);
        let d = m[c][c];
        if d.abs() < 1e-15 {
            let mean = |k: usize| points.iter().map(|p| p[k]).sum::<f64>() / points.len() as f64;
            return ([mean(0), mean(1), mean(2)], 0.09);
        }
        for r in 0..4 {
            if r != c {
                let f = m[r][c] / d;
                for k in c..5 {
                    m[r][k] -= f * m[c][k];
                }
            }
        }
    }
    let c = [m[0][4] / m[0][0], m[1][4] / m[1][1], m[2][4] / m[2][2]];
    let k = m[3][4] / m[3][3];
    (c, (k + c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).max(0.0).sqrt())
}

/// Azimuthal equidistant projection about the fitted sphere's vertex: radius = polar angle / (π/2).
pub fn project(points: &[[f64; 3]]) -> Vec<[f64; 2]> {
    if points.len() < 4 {
        return points.iter().map(|p| [p[0], p[1]]).collect();
    }
    let (c, _) = fit_sphere(points);
    points
        .iter()
        .map(|p| {
            let (x, y, z) = (p[0] - c[0], p[1] - c[1], p[2] - c[2]);
            let r = (x * x + y * y + z * z).sqrt().max(1e-12);
            let theta = (z / r).clamp(-1.0, 1.0).acos();
            let phi = y.atan2(x);
            let rho = theta / std::f64::consts::FRAC_PI_2;
            [rho * phi.cos(), rho * phi.sin()]
        })
        .collect()
}

/// A scalp map: projected electrodes with their values and an interpolated grid over [−extent, extent]².
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopoMap {
    pub labels: Vec<String>,
    pub xy: Vec<[f64; 2]>,
    pub values: Vec<f64>,
    pub size: usize,
    pub extent: f64,
    /// Row-major, row 0 at +y (front); `None` outside the head.
    pub grid: Vec<Option<f64>>,
}

/// Interpolates `values` at `xy` on a `size`² grid by inverse squared distance with a smoothing length of
/// 0.08 head radii (no spikes at the electrodes), masked to the head circle (radius 1, or a little beyond the
/// outermost electrode).
pub fn topomap(labels: Vec<String>, xy: Vec<[f64; 2]>, values: Vec<f64>, size: usize) -> Result<TopoMap, SignalError> {
    if xy.len() < 3 || xy.len() != values.len() {
        return Err(invalid!("a scalp map needs at least 3 electrodes with positions ({} given)", xy.len()));
    }
    let rmax = xy.iter().map(|p| (p[0] * p[0] + p[1] * p[1]).sqrt()).fold(1.0f64, f64::max) * 1.02;
    let extent = rmax * 1.05;
    let mut grid = Vec::with_capacity(size * size);
    for row in 0..size {
        for col in 0..size {
            let x = -extent + 2.0 * extent * (col as f64 + 0.5) / size as f64;
            let y = extent - 2.0 * extent * (row as f64 + 0.5) / size as f64;
            if (x * x + y * y).sqrt() > rmax {
                grid.push(None);
                continue;
            }
            let (mut num, mut den) = (0.0, 0.0);
            for (p, v) in xy.iter().zip(&values) {
                let d2 = (p[0] - x).powi(2) + (p[1] - y).powi(2) + 0.08 * 0.08;
                num += v / d2;
                den += 1.0 / d2;
            }
            grid.push(Some(num / den));
        }
    }
    Ok(TopoMap { labels, xy, values, size, extent, grid })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_electrode_name_with_a_comma_is_one_name() {
        let p = parse_positions("\u{feff}channel,x,y,z\n\"EEG Fp1, ref A1\",0.01,0.08,0.02\n\nCz,0,0,0.09\n").unwrap();
        assert_eq!(p[0], ("EEG Fp1, ref A1".to_string(), [0.01, 0.08, 0.02]));
        assert_eq!(p[1].0, "Cz");
        assert!(parse_positions("channel,x,y,z\nO1,0,x,0\n").unwrap_err().to_string().contains("line 2"));
        assert!(parse_positions(STANDARD_1020).unwrap().len() > 90);
    }

    #[test]
    fn standard_positions_and_projection() {
        let labels: Vec<String> = ["EEG Fp1-REF", "Cz", "O2", "EOG"].iter().map(|s| s.to_string()).collect();
        let pos = positions_for(&labels, None);
        assert!(pos[0].is_some() && pos[1].is_some() && pos[2].is_some() && pos[3].is_none());
        let std: Vec<[f64; 3]> = parse_positions(STANDARD_1020).unwrap().into_iter().map(|(_, p)| p).collect();
        let xy = project(&std);
        let names: Vec<String> = parse_positions(STANDARD_1020).unwrap().into_iter().map(|(n, _)| n).collect();
        let at = |n: &str| xy[names.iter().position(|x| x == n).unwrap()];
        // Cz near the centre, Fpz in front (+y), T7 on the left (−x), all near the unit circle's inside.
        assert!(at("Cz")[0].hypot(at("Cz")[1]) < 0.15);
        assert!(at("Fpz")[1] > 0.7 && at("T7")[0] < -0.7, "{:?} {:?}", at("Fpz"), at("T7"));
    }
}

/// Electrode positions: label and x/y/z in metres (head frame).
pub type Positions = Vec<(String, [f64; 3])>;

/// The electrode positions of `rec`: `explicit` (a CSV the user names), else the `<stem>_positions.csv`
/// beside it, else the file's own (BrainVision coordinates, EEGLAB chanlocs, FIF locations), else none (the
/// standard 10-20 table then serves 10-20 labels, [`positions_for`]).
pub fn recording_positions(
    rec: &crate::signal::Recording,
    explicit: Option<&Path>,
) -> Result<Option<Positions>, SignalError> {
    match explicit.map(Path::to_path_buf).or_else(|| sibling_positions(rec.path())) {
        Some(p) => Ok(Some(load_positions(&p)?)),
        None => Ok((!rec.positions().is_empty()).then(|| rec.positions().to_vec())),
    }
}

/// The positions CSV a recording brings beside it: `<stem>_positions.csv` (as the shared sample data does).
pub fn sibling_positions(recording: &Path) -> Option<std::path::PathBuf> {
    let stem = recording.file_stem()?.to_string_lossy().to_string();
    let p = recording.with_file_name(format!("{stem}_positions.csv"));
    p.exists().then_some(p)
}

/// Viridis-like colour of t ∈ [0, 1] as RGB.
pub fn colormap(t: f64) -> [u8; 3] {
    const A: [[f64; 3]; 5] =
        [[68.0, 1.0, 84.0], [59.0, 82.0, 139.0], [33.0, 145.0, 140.0], [94.0, 201.0, 98.0], [253.0, 231.0, 37.0]];
    let x = if t.is_finite() { t.clamp(0.0, 1.0) * 4.0 } else { 0.0 };
    let i = (x.floor() as usize).min(3);
    let f = x - i as f64;
    [0, 1, 2].map(|k| (A[i][k] + (A[i + 1][k] - A[i][k]) * f) as u8)
}

impl TopoMap {
    /// RGBA pixels of the grid (transparent outside the head), colours scaled to the value range.
    pub fn rgba(&self) -> Vec<u8> {
        let (lo, hi) = self.values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(*v), h.max(*v)));
        self.grid
            .iter()
            .flat_map(|g| match g {
                Some(v) => {
                    let [r, gg, b] = colormap((v - lo) / (hi - lo).max(1e-300));
                    [r, gg, b, 255]
                }
                None => [0, 0, 0, 0],
            })
            .collect()
    }
}
