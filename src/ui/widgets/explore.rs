//! What the plots a user explores share (egui_plot: drag or wheel pans, Ctrl+wheel or a pinch zooms, a
//! right-button drag zooms to a box, a double click resets): the last drawn view, a zoom asked for from
//! outside the plot (a button, a deep link), decade labels for a log axis, the sample nearest the cursor for
//! a read-out, and clock labels for a time axis. Figures that are exported stay scenes (`super::scene`).

use egui_plot::{GridMark, PlotBounds, PlotResponse, PlotUi};

/// A plot's last drawn view: where it is on screen and the data range it shows (zoom and pan change it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotView {
    pub rect: egui::Rect,
    pub x: (f64, f64),
    pub y: (f64, f64),
}

impl PlotView {
    pub fn of<R>(r: &PlotResponse<R>) -> PlotView {
        let b = r.transform.bounds();
        PlotView { rect: *r.transform.frame(), x: (b.min()[0], b.max()[0]), y: (b.min()[1], b.max()[1]) }
    }

    /// The screen position of the data point (x, y) in this view.
    pub fn screen(&self, x: f64, y: f64) -> egui::Pos2 {
        let fx = ((x - self.x.0) / (self.x.1 - self.x.0)) as f32;
        let fy = ((y - self.y.0) / (self.y.1 - self.y.0)) as f32;
        egui::pos2(self.rect.left() + fx * self.rect.width(), self.rect.bottom() - fy * self.rect.height())
    }
}

/// Shows the x-range `want` (taken), with y fitted to the `series` points inside it (5 % margin): a zoom
/// asked for outside the plot. Call inside `Plot::show`.
pub fn apply_zoom(pu: &mut PlotUi, want: &mut Option<(f64, f64)>, series: &[Vec<[f64; 2]>]) {
    let Some((lo, hi)) = want.take().filter(|(lo, hi)| hi > lo) else { return };
    let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
    for [x, y] in series.iter().flatten() {
        if (lo..=hi).contains(x) && y.is_finite() {
            y0 = y0.min(*y);
            y1 = y1.max(*y);
        }
    }
    if !(y0.is_finite() && y1.is_finite()) {
        pu.set_plot_bounds_x(lo..=hi);
        return;
    }
    let pad = ((y1 - y0) * 0.05).max(1e-12);
    pu.set_plot_bounds(PlotBounds::from_min_max([lo, y0 - pad], [hi, y1 + pad]));
}

/// Tick labels of a log10 axis: `1e-11` at whole decades, nothing between them — unless the view spans less
/// than two decades (zoomed in), where every mark is labelled with its value (`3.16e-1`).
pub fn log_label(m: GridMark, range: &std::ops::RangeInclusive<f64>) -> String {
    let r = m.value.round();
    if range.end() - range.start() < 2.0 {
        format!("{:.2e}", 10f64.powf(m.value))
    } else if (m.value - r).abs() < 1e-9 {
        format!("1e{r:.0}")
    } else {
        String::new()
    }
}

/// The index of the value of `xs` (ascending) nearest to `x`.
pub fn nearest(xs: &[f64], x: f64) -> Option<usize> {
    if xs.is_empty() || !x.is_finite() {
        return None;
    }
    let i = xs.partition_point(|v| *v < x);
    Some(match i {
        0 => 0,
        i if i >= xs.len() => xs.len() - 1,
        i if (xs[i] - x).abs() < (x - xs[i - 1]).abs() => i,
        i => i - 1,
    })
}

/// Seconds as a clock on a time axis: `h:mm` from an hour on, `m:ss` below (the sign kept).
pub fn clock(seconds: f64) -> String {
    let sign = if seconds < 0.0 { "-" } else { "" };
    let s = seconds.abs().round() as u64;
    if s >= 3600 {
        format!("{sign}{}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60)
    } else {
        format!("{sign}{}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_sample_and_the_labels() {
        let xs = [0.0, 0.5, 1.0, 1.5];
        assert_eq!(nearest(&xs, 0.7), Some(1));
        assert_eq!(nearest(&xs, 0.8), Some(2));
        assert_eq!(nearest(&xs, -3.0), Some(0));
        assert_eq!(nearest(&xs, 9.0), Some(3));
        assert_eq!(nearest(&[], 1.0), None);
        let wide = -14.0..=-9.0;
        assert_eq!(log_label(GridMark { value: -11.0, step_size: 1.0 }, &wide), "1e-11");
        assert_eq!(log_label(GridMark { value: -11.5, step_size: 0.5 }, &wide), "");
        assert_eq!(log_label(GridMark { value: -0.5, step_size: 0.5 }, &(-1.0..=0.2)), "3.16e-1");
        assert_eq!(clock(95.0), "1:35");
        assert_eq!(clock(3.0 * 3600.0 + 61.0), "3:01:01");
    }

    #[test]
    fn a_view_maps_data_to_the_screen() {
        let v = PlotView {
            rect: egui::Rect::from_min_size(egui::pos2(10.0, 20.0), egui::vec2(100.0, 50.0)),
            x: (0.0, 10.0),
            y: (0.0, 1.0),
        };
        assert_eq!(v.screen(5.0, 0.5), egui::pos2(60.0, 45.0));
    }
}
