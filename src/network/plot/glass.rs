//! The glass brain as nilearn's `plot_connectome` draws it: the outlines nilearn ships
//! (`assets/glass_brain/`, its `brain_schematics_*.json`) placed in MNI millimetres by nilearn's own affines,
//! nodes projected by dropping the view's axis, each panel's data frame the outline's bounds with nilearn's
//! margins, the left view's x axis inverted, and in the `l`/`r` views only that hemisphere's nodes and edges.

use super::{Figure, Input, NodeMark, Panel, Style, colour_bar, edge_colour, legend, radii};
use super::{GREY, HIGHLIGHT, SELECTED};
use crate::network::error::{NetworkError, Result, format};
use crate::util::chart::scene::{Anchor, Item, Rgba, Scene, flatten};
use std::sync::OnceLock;

/// Curves of one outline path, flattened, in MNI mm.
type Polylines = Vec<Vec<[f64; 2]>>;

/// One outline drawing in MNI mm (the view's two axes), with its nilearn frame.
struct Outline {
    /// (colour, line width, polylines).
    paths: Vec<([u8; 3], f32, Polylines)>,
    /// x min, x max, y min, y max: the drawing's bounds plus nilearn's margins (2.5 % + 0.1 mm).
    limits: [f64; 4],
}

const SIDE: &str = include_str!("../../../assets/glass_brain/side.json");
const BACK: &str = include_str!("../../../assets/glass_brain/back.json");
const TOP: &str = include_str!("../../../assets/glass_brain/top.json");

/// The outline file and nilearn's affine `[a, b, c, d, e, f]` (x' = a x + c y + e, y' = b x + d y + f) of a view.
fn source(direction: char) -> (&'static str, &'static str, [f64; 6]) {
    match direction {
        'y' => ("assets/glass_brain/back.json", BACK, [0.39, 0.0, 0.0, 0.39, -73.0, -73.0]),
        'z' => ("assets/glass_brain/top.json", TOP, [0.36, 0.0, 0.0, 0.37, -71.0, -107.0]),
        _ => ("assets/glass_brain/side.json", SIDE, [0.38, 0.0, 0.0, 0.38, -108.0, -70.0]),
    }
}

fn parse(direction: char) -> Result<Outline> {
    let (file, text, [a, b, c, d, e, f]) = source(direction);
    let bad = |what: &str| format(&file, what.to_string());
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| format(&file, e.to_string()))?;
    let tf = |p: &serde_json::Value| -> Option<[f64; 2]> {
        let (x, y) = (p.get(0)?.as_f64()?, p.get(1)?.as_f64()?);
        Some([a * x + c * y + e, b * x + d * y + f])
    };
    let mut paths = Vec::new();
    for path in json["paths"].as_array().ok_or_else(|| bad("no 'paths' list"))? {
        let colour = path["edgecolor"].as_str().and_then(hex).ok_or_else(|| bad("a path without 'edgecolor'"))?;
        let width = path["linewidth"].as_f64().unwrap_or(1.0) as f32;
        let mut lines = Vec::new();
        for item in path["items"].as_array().ok_or_else(|| bad("a path without 'items'"))? {
            let pts: Option<Vec<[f64; 2]>> = item["pts"].as_array().map(|v| v.iter().filter_map(tf).collect());
            lines.push(flatten(&pts.ok_or_else(|| bad("an item without 'pts'"))?, 12));
        }
        paths.push((colour, width, lines));
    }
    let bounds: Vec<f64> = json["metadata"]["bounds"]
        .as_array()
        .map(|v| v.iter().filter_map(|x| x.as_f64()).collect())
        .unwrap_or_default();
    let [x0, x1, y0, y1] = <[f64; 4]>::try_from(bounds).map_err(|_| bad("metadata.bounds is not 4 numbers"))?;
    let (p0, p1) = ([a * x0 + c * y0 + e, b * x0 + d * y0 + f], [a * x1 + c * y1 + e, b * x1 + d * y1 + f]);
    let (xmin, xmax, ymin, ymax) = (p0[0].min(p1[0]), p0[0].max(p1[0]), p0[1].min(p1[1]), p0[1].max(p1[1]));
    let (mx, my) = ((xmax - xmin) * 0.025 + 0.1, (ymax - ymin) * 0.025 + 0.1);
    Ok(Outline { paths, limits: [xmin - mx, xmax + mx, ymin - my, ymax + my] })
}

fn hex(s: &str) -> Option<[u8; 3]> {
    let s = s.strip_prefix('#')?;
    let v = |k: usize| u8::from_str_radix(s.get(k..k + 2)?, 16).ok();
    Some([v(0)?, v(2)?, v(4)?])
}

fn outline(direction: char) -> Result<&'static Outline> {
    static CACHE: OnceLock<[std::result::Result<Outline, String>; 3]> = OnceLock::new();
    let all = CACHE.get_or_init(|| ['x', 'y', 'z'].map(|d| parse(d).map_err(|e| e.to_string())));
    let k = match direction {
        'y' => 1,
        'z' => 2,
        _ => 0,
    };
    all[k].as_ref().map_err(|e| NetworkError::Invalid(e.clone()))
}

/// The panels of a display mode: `ortho` is `xyz`; otherwise nilearn's letters, each one of x, y, z, l, r.
pub fn directions(mode: &str) -> Result<Vec<char>> {
    let letters = if mode == "ortho" { "xyz" } else { mode };
    if letters.is_empty() || !letters.chars().all(|c| "xyzlr".contains(c)) {
        return Err(NetworkError::Invalid(format!(
            "unknown display mode '{mode}': use ortho or letters of x, y, z, l, r (e.g. lzry, lyrz, xz, l)"
        )));
    }
    Ok(letters.chars().collect())
}

/// nilearn's `coords_3d_to_2d`: the two axes left after dropping the view's one.
pub fn project(p: [f64; 3], direction: char) -> [f64; 2] {
    match direction {
        'y' => [p[0], p[2]],
        'z' => [p[0], p[1]],
        _ => [p[1], p[2]],
    }
}

/// Whether a node at MNI x shows in a view (`l`: x ≤ 0, `r`: x ≥ 0) and an edge between two (`l`: both
/// x < 0, `r`: both ≥ 0), as nilearn's hemisphere views.
fn shows_node(x: f64, d: char) -> bool {
    match d {
        'l' => x <= 0.0,
        'r' => x >= 0.0,
        _ => true,
    }
}

fn shows_edge(x1: f64, x2: f64, d: char) -> bool {
    match d {
        'l' => x1 < 0.0 && x2 < 0.0,
        'r' => x1 >= 0.0 && x2 >= 0.0,
        _ => true,
    }
}

/// The coordinates of every region (the glass brain and the 3-D view need them), or why there are none.
pub fn coords_of<'a>(input: &Input<'a>) -> Result<&'a Vec<[f64; 3]>> {
    let atlas =
        input.atlas.ok_or_else(|| NetworkError::Invalid("drawing a brain needs an atlas with coordinates".into()))?;
    let coords = atlas
        .coords
        .as_ref()
        .ok_or_else(|| NetworkError::Invalid(format!("atlas {} has no coordinates for the glass brain", atlas.name)))?;
    if coords.len() != input.n {
        return Err(NetworkError::Invalid(format!(
            "atlas {} has {} regions with coordinates, the matrix {}",
            atlas.name,
            coords.len(),
            input.n
        )));
    }
    Ok(coords)
}

/// Draws the glass brain of `input` (the atlas must have coordinates for every region).
pub fn draw(input: &Input, style: &Style) -> Result<Figure> {
    let coords = coords_of(input)?;
    let coords_from = input.atlas.and_then(|a| a.coords_from.clone());
    let dirs = directions(&style.display_mode)?;
    let h = style.height.max(60.0);
    let mut panels = Vec::new();
    let mut left = 0.0f32;
    for &d in &dirs {
        let o = outline(d)?;
        let [x0, x1, y0, y1] = o.limits;
        let w = h * ((x1 - x0) / (y1 - y0)) as f32;
        let (l, r) = if d == 'l' { (left + w, left) } else { (left, left + w) };
        panels.push(Panel { name: d.to_string(), data_limits: o.limits, frame: [[l, h], [r, 0.0]], edges: 0 });
        left += w;
    }
    let mut scene = Scene::new(left + 150.0, h);
    let edges = input.edges_above(style.edge_percentile);
    let span = super::span(&edges);
    let (fills, key) = input.fills(style.node_colour);
    let r = radii(input, style.node_size, 7.0 * h / 300.0);
    let mut marks = Vec::new();
    for (k, (&d, panel)) in dirs.iter().zip(panels.iter_mut()).enumerate() {
        let [x0, x1, y0, y1] = panel.data_limits;
        let [[l, b], [rt, t]] = panel.frame;
        let px = |u: [f64; 2]| {
            [l + (rt - l) * ((u[0] - x0) / (x1 - x0)) as f32, b + (t - b) * ((u[1] - y0) / (y1 - y0)) as f32]
        };
        for (colour, width, lines) in &outline(d)?.paths {
            for line in lines {
                let pts = line.iter().map(|&u| px(u)).collect();
                scene.push(Item::Polyline { pts, width: *width * h / 400.0, color: Rgba::rgb(*colour).alpha(0.7) });
            }
        }
        let at = |i: usize| px(project(coords[i], d));
        for &(i, j, w) in &edges {
            if shows_edge(coords[i][0], coords[j][0], d) {
                panel.edges += 1;
                let width = (1.0 + 2.0 * (w.abs() / span) as f32) * h / 400.0;
                scene.push(Item::Line { a: at(i), b: at(j), width, color: edge_colour(w, span) });
            }
        }
        if let Some(s) = style.selected.filter(|&s| s < input.n) {
            for j in (0..input.n).filter(|&j| j != s && input.pair(s, j) > 0.0) {
                if shows_edge(coords[s][0], coords[j][0], d) {
                    scene.push(Item::Line { a: at(s), b: at(j), width: 0.8, color: SELECTED.alpha(0.6) });
                }
            }
        }
        for i in (0..input.n).filter(|&i| shows_node(coords[i][0], d)) {
            let fill = fills[i];
            scene.push(Item::Circle { c: at(i), r: r[i], fill, stroke: Some((0.5, Rgba([40, 40, 40, 160]))) });
            if style.highlight.contains(&i) {
                scene.push(Item::Circle {
                    c: at(i),
                    r: r[i] + 3.0,
                    fill: Rgba([0, 0, 0, 0]),
                    stroke: Some((2.0, HIGHLIGHT)),
                });
            }
            if style.selected == Some(i) {
                scene.push(Item::Circle {
                    c: at(i),
                    r: r[i] + 2.5,
                    fill: Rgba([0, 0, 0, 0]),
                    stroke: Some((2.5, SELECTED)),
                });
            }
            marks.push(NodeMark { node: i, panel: k, at: at(i), r: r[i] });
        }
        if d == 'y' || d == 'z' {
            scene.text([l.min(rt) + 10.0, 14.0], "L", 13.0, GREY, Anchor::Middle);
            scene.text([l.max(rt) - 10.0, 14.0], "R", 13.0, GREY, Anchor::Middle);
        }
    }
    colour_bar(&mut scene, left + 12.0, 28.0, h * 0.5, span, "edge weight");
    legend(&mut scene, &key, left + 12.0, h * 0.5 + 22.0, ((h * 0.5 - 30.0) / 16.0).max(1.0) as usize);
    let mut notes = vec![format!(
        "{} edges at or above the {}th percentile of |weight| (nilearn edge_threshold rule); nodes sized by {}",
        edges.len(),
        style.edge_percentile,
        style.node_size.name()
    )];
    if let Some(from) = &coords_from {
        notes.push(format!("positions: {from}"));
    }
    Ok(Figure { scene, marks, panels, edges: edges.len(), notes })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outlines parse, lie where nilearn puts them (MNI mm: the side view spans y about −105..70 and z
    /// −70..80) and the display modes are read as nilearn's letters.
    #[test]
    fn outlines_are_in_mni_millimetres() {
        let side = outline('x').unwrap();
        let [x0, x1, y0, y1] = side.limits;
        assert!((-115.0..-95.0).contains(&x0) && (65.0..85.0).contains(&x1), "{x0} {x1}");
        assert!((-80.0..-60.0).contains(&y0) && (75.0..95.0).contains(&y1), "{y0} {y1}");
        assert!(side.paths.len() > 10);
        assert_eq!(outline('z').unwrap().limits.len(), 4);
        assert_eq!(directions("ortho").unwrap(), vec!['x', 'y', 'z']);
        assert_eq!(directions("lzry").unwrap(), vec!['l', 'z', 'r', 'y']);
        assert!(directions("xq").unwrap_err().to_string().contains("unknown display mode 'xq'"));
        assert_eq!(project([1.0, 2.0, 3.0], 'l'), [2.0, 3.0]);
        assert_eq!(project([1.0, 2.0, 3.0], 'y'), [1.0, 3.0]);
    }
}
