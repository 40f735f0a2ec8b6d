//! SVG versions of the radar and the heatmaps (for papers: vector, no GUI needed).

use std::fmt::Write as _;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Radar over `axes` (values in [0, 1]) with one polygon per series.
pub fn radar(series: &[(String, Vec<Option<f64>>)], axes: &[String]) -> String {
    let (w, h, cx, cy, r) = (640.0, 560.0, 320.0, 300.0, 190.0);
    let n = axes.len().max(1);
    let at = |k: usize, v: f64| {
        let a = -std::f64::consts::FRAC_PI_2 + k as f64 * std::f64::consts::TAU / n as f64;
        (cx + a.cos() * r * v, cy + a.sin() * r * v)
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"13\">"
    );
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>";
    for ring in [0.25, 0.5, 0.75, 1.0] {
        let pts: Vec<String> = (0..n).map(|k| at(k, ring)).map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = write!(s, "<polygon points=\"{}\" fill=\"none\" stroke=\"#bbb\"/>", pts.join(" "));
    }
    for (k, a) in axes.iter().enumerate() {
        let (x, y) = at(k, 1.0);
        let (tx, ty) = at(k, 1.18);
        let _ = write!(s, "<line x1=\"{cx}\" y1=\"{cy}\" x2=\"{x:.1}\" y2=\"{y:.1}\" stroke=\"#bbb\"/>");
        let _ = write!(
            s,
            "<text x=\"{tx:.1}\" y=\"{ty:.1}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{}</text>",
            esc(a)
        );
    }
    for (i, (name, vals)) in series.iter().enumerate() {
        let c = super::colors::hex(super::colors::category(i));
        let pts: Vec<String> = vals
            .iter()
            .enumerate()
            .map(|(k, v)| at(k, v.unwrap_or(0.0)))
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = write!(
            s,
            "<polygon points=\"{}\" fill=\"{c}\" fill-opacity=\"0.12\" stroke=\"{c}\" stroke-width=\"2\"/>",
            pts.join(" ")
        );
        let _ = write!(
            s,
            "<rect x=\"12\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{c}\"/><text x=\"30\" y=\"{}\">{}</text>",
            12 + 18 * i,
            22 + 18 * i,
            esc(name)
        );
    }
    s + "</svg>"
}

/// Heatmap with a value in each cell; `diverging` colours around 0 (blue–white–red), else white → blue.
pub fn heatmap(rows: &[String], cols: &[String], values: &[Option<f64>], diverging: bool, decimals: usize) -> String {
    let (cw, ch) = (100.0, 28.0);
    let lw = 10.0 + 7.5 * rows.iter().map(|r| r.chars().count()).max().unwrap_or(4) as f64;
    let (w, h) = (lw + cw * cols.len() as f64 + 10.0, 40.0 + ch * rows.len() as f64 + 10.0);
    let span = values.iter().flatten().fold(1e-12f64, |a, v| a.max(v.abs()));
    let (lo, hi) = values.iter().flatten().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    let color = |v: f64| {
        super::colors::css(if diverging {
            super::colors::diverging(v, span)
        } else {
            super::colors::sequential(v, lo, hi)
        })
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>";
    for (j, c) in cols.iter().enumerate() {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"32\" text-anchor=\"middle\">{}</text>",
            lw + cw * (j as f64 + 0.5),
            esc(c)
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let y = 40.0 + ch * i as f64;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>",
            lw - 6.0,
            y + ch / 2.0,
            esc(r)
        );
        for j in 0..cols.len() {
            let x = lw + cw * j as f64;
            match values[i * cols.len() + j] {
                Some(v) => {
                    let _ = write!(
                        s,
                        "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cw}\" height=\"{ch}\" fill=\"{}\" stroke=\"white\"/>\
                         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{v:.decimals$}</text>",
                        color(v),
                        x + cw / 2.0,
                        y + ch / 2.0
                    );
                }
                None => {
                    let _ = write!(
                        s,
                        "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cw}\" height=\"{ch}\" fill=\"none\" stroke=\"#ccc\"/>"
                    );
                }
            }
        }
    }
    s + "</svg>"
}

#[cfg(test)]
mod tests {
    #[test]
    fn radar_and_heatmap_svg() {
        let axes: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let s = super::radar(&[("m<1>".into(), vec![Some(1.0), Some(0.5), None])], &axes);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
        assert!(s.contains("m&lt;1&gt;"));
        assert_eq!(s.matches("<polygon").count(), 4 + 1, "four rings and one series");
        let h = super::heatmap(&["r".into()], &axes, &[Some(-0.5), None, Some(0.25)], true, 2);
        assert!(h.contains(">-0.50<") && h.contains(">0.25<"));
        assert_eq!(h.matches("fill=\"none\" stroke=\"#ccc\"").count(), 1, "the empty cell");
    }
}
