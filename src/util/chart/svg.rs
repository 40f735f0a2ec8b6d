//! SVG versions of the radar, the heatmaps and any [`Scene`] (for papers: vector, no GUI needed).

use super::scene::{Anchor, Item, Rgba, Scene};
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

/// Horizontal bars, grouped: one group (a row label) per `groups` entry, one bar per series within it
/// (`values[series][group]`, missing = no bar), on a 0…`max` axis with ticks at fifths, each bar labelled
/// with its value to `decimals`, and a legend when there is more than one series. One series gives a plain
/// bar chart (in the order given: sort the groups for a ranking).
pub fn bars(groups: &[String], series: &[String], values: &[Vec<Option<f64>>], max: f64, decimals: usize) -> String {
    let (bar_h, gap, plot_w) = (18.0, 10.0, 420.0);
    let max = if max > 0.0 { max } else { 1.0 };
    let lw = 14.0 + 7.2 * groups.iter().map(|g| g.chars().count()).max().unwrap_or(4) as f64;
    let legend_h = if series.len() > 1 { 18.0 * series.len() as f64 + 8.0 } else { 0.0 };
    let group_h = bar_h * series.len().max(1) as f64 + gap;
    let top = 16.0 + legend_h;
    let (w, h) = (lw + plot_w + 70.0, top + group_h * groups.len() as f64 + 30.0);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>";
    if series.len() > 1 {
        for (i, name) in series.iter().enumerate() {
            let c = super::colors::hex(super::colors::category(i));
            let y = 10.0 + 18.0 * i as f64;
            let _ = write!(
                s,
                "<rect x=\"{lw:.1}\" y=\"{y:.1}\" width=\"12\" height=\"12\" fill=\"{c}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                lw + 18.0,
                y + 10.0,
                esc(name)
            );
        }
    }
    let bottom = top + group_h * groups.len() as f64;
    for t in 0..=5 {
        let x = lw + plot_w * t as f64 / 5.0;
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{top:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" stroke=\"#dddddd\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{:.prec$}</text>",
            bottom + 16.0,
            max * t as f64 / 5.0,
            prec = decimals.min(2)
        );
    }
    for (g, name) in groups.iter().enumerate() {
        let y0 = top + group_h * g as f64;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>",
            lw - 6.0,
            y0 + (group_h - gap) / 2.0,
            esc(name)
        );
        for (k, vals) in values.iter().enumerate() {
            let Some(v) = vals.get(g).copied().flatten() else { continue };
            let y = y0 + bar_h * k as f64;
            let bw = plot_w * (v / max).clamp(0.0, 1.0);
            let c = super::colors::hex(super::colors::category(k));
            let _ = write!(
                s,
                "<rect x=\"{lw:.1}\" y=\"{:.1}\" width=\"{bw:.1}\" height=\"{:.1}\" fill=\"{c}\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" dominant-baseline=\"middle\">{v:.decimals$}</text>",
                y + 1.0,
                bar_h - 2.0,
                lw + bw + 4.0,
                y + bar_h / 2.0
            );
        }
    }
    let _ = write!(s, "<line x1=\"{lw:.1}\" y1=\"{top:.1}\" x2=\"{lw:.1}\" y2=\"{bottom:.1}\" stroke=\"#444444\"/>");
    s + "</svg>"
}

/// `svg` with a caption line added below it (the canvas grows by 24 px).
pub fn captioned(svg: &str, text: &str) -> String {
    let attr = |name: &str| -> Option<f64> {
        let tag = &svg[..svg.find('>')?];
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next()?.trim_end_matches("px").parse().ok()
    };
    let (Some(w), Some(h)) = (attr("width"), attr("height")) else { return svg.to_string() };
    let esc = text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    // Wide enough for the caption too (about 6.6 px a character at 12 px).
    let w2 = w.max((16.0 + 6.6 * text.chars().count() as f64).ceil());
    let grown = svg.replacen(&format!("height=\"{h}\""), &format!("height=\"{}\"", h + 24.0), 1);
    let grown = grown.replacen(&format!("width=\"{w}\""), &format!("width=\"{w2}\""), 1);
    let grown = match grown.find("viewBox=\"") {
        Some(_) => grown.replacen(&format!("0 0 {w} {h}"), &format!("0 0 {w2} {}", h + 24.0), 1),
        None => grown,
    };
    grown.replacen("</svg>", &format!("<text x=\"8\" y=\"{}\" font-size=\"12\">{esc}</text></svg>", h + 16.0), 1)
}

/// Heatmap with a value in each cell; `diverging` colours around 0 (blue–white–red), else white → blue.
pub fn heatmap(rows: &[String], cols: &[String], values: &[Option<f64>], diverging: bool, decimals: usize) -> String {
    let (cw, ch) = (100.0, 28.0);
    let lw = 10.0 + 7.5 * rows.iter().map(|r| r.chars().count()).max().unwrap_or(4) as f64;
    // Column labels wider than a cell are set at 35° so they never run into each other.
    let col_px = 7.0 * cols.iter().map(|c| c.chars().count()).max().unwrap_or(0) as f64;
    let slanted = col_px > cw - 6.0;
    let top = if slanted { 24.0 + 0.58 * col_px } else { 40.0 };
    let right = if slanted { 0.82 * col_px } else { 0.0 };
    let (w, h) = (lw + cw * cols.len() as f64 + 10.0 + right, top + ch * rows.len() as f64 + 10.0);
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
        let x = lw + cw * (j as f64 + 0.5);
        let _ = if slanted {
            let y = top - 8.0;
            write!(s, "<text x=\"{x:.1}\" y=\"{y:.1}\" transform=\"rotate(-35 {x:.1} {y:.1})\">{}</text>", esc(c))
        } else {
            write!(s, "<text x=\"{x:.1}\" y=\"32\" text-anchor=\"middle\">{}</text>", esc(c))
        };
    }
    for (i, r) in rows.iter().enumerate() {
        let y = top + ch * i as f64;
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

/// The font family figures name; the PNG renderer loads exactly this font (see [`super::png`]).
pub const FONT_FAMILY: &str = "Ubuntu";

/// `fill="#rrggbb"` (or `stroke=…`), with its `-opacity` when the colour is not opaque.
fn attr(name: &str, c: Rgba) -> String {
    let [r, g, b, a] = c.0;
    let op = if a == 255 { String::new() } else { format!(" {name}-opacity=\"{:.3}\"", a as f32 / 255.0) };
    format!("{name}=\"#{r:02x}{g:02x}{b:02x}\"{op}")
}

/// A scene as an SVG document of the scene's size (1 px = 1 user unit).
pub fn scene(sc: &Scene) -> String {
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"{FONT_FAMILY}, sans-serif\">",
        sc.width, sc.height, sc.width, sc.height
    );
    let _ = write!(s, "<rect width=\"100%\" height=\"100%\" {}/>", attr("fill", sc.background));
    for item in &sc.items {
        let _ = match item {
            Item::Line { a, b, width, color } => write!(
                s,
                "<line x1=\"{:.2}\" y1=\"{:.2}\" x2=\"{:.2}\" y2=\"{:.2}\" {} stroke-width=\"{width}\" stroke-linecap=\"round\"/>",
                a[0],
                a[1],
                b[0],
                b[1],
                attr("stroke", *color)
            ),
            Item::Polyline { pts, width, color } => {
                let p: Vec<String> = pts.iter().map(|p| format!("{:.2},{:.2}", p[0], p[1])).collect();
                write!(
                    s,
                    "<polyline points=\"{}\" fill=\"none\" {} stroke-width=\"{width}\" stroke-linejoin=\"round\" stroke-linecap=\"round\"/>",
                    p.join(" "),
                    attr("stroke", *color)
                )
            }
            Item::Circle { c, r, fill, stroke: edge } => {
                let edge =
                    edge.map_or_else(String::new, |(w, col)| format!(" {} stroke-width=\"{w}\"", attr("stroke", col)));
                write!(s, "<circle cx=\"{:.2}\" cy=\"{:.2}\" r=\"{r:.2}\" {}{edge}/>", c[0], c[1], attr("fill", *fill))
            }
            Item::Rect { min, max, fill } => write!(
                s,
                "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{:.2}\" {}/>",
                min[0],
                min[1],
                max[0] - min[0],
                max[1] - min[1],
                attr("fill", *fill)
            ),
            Item::Text { at, text, size, color, anchor } => {
                let anchor = match anchor {
                    Anchor::Start => "start",
                    Anchor::Middle => "middle",
                    Anchor::End => "end",
                };
                // dominant-baseline is not read by every viewer: the baseline is placed a third of the size
                // below the anchor instead, which centres Latin text.
                write!(
                    s,
                    "<text x=\"{:.2}\" y=\"{:.2}\" font-size=\"{size}\" text-anchor=\"{anchor}\" {}>{}</text>",
                    at[0],
                    at[1] + size * 0.35,
                    attr("fill", *color),
                    esc(text)
                )
            }
        };
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
