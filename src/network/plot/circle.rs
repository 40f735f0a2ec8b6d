//! The circle: regions on a ring grouped by network (or module), the legend beside the ring, only the
//! edges above the style's percentile, drawn as chords bent towards the centre with opacity and width
//! growing with |weight| (so the strong structure shows through the weak), the selected region's links on top.

use super::{Figure, Input, NodeMark, Panel, Style, edge_colour, legend};
use super::{HIGHLIGHT, SELECTED};
use crate::network::error::Result;
use crate::util::chart::scene::{Item, Rgba, Scene, flatten};

/// Regions in ring order: by category (first appearance), then index.
pub fn ring_order(cat: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cat.len()).collect();
    order.sort_by_key(|&i| (cat[i], i));
    order
}

/// Draws the circle of `input` in a square of `style.height` with the legend to its right.
pub fn draw(input: &Input, style: &Style) -> Result<Figure> {
    let side = style.height.max(80.0);
    let (fills, key) = input.fills(style.node_colour);
    let (cat, _) = input.categories(style.node_colour);
    let mut scene = Scene::new(side + 170.0, side);
    let (cx, cy, radius) = (side / 2.0, side / 2.0, side * 0.44);
    let n = input.n;
    let mut pos = vec![[0.0f32; 2]; n];
    for (k, &i) in ring_order(&cat).iter().enumerate() {
        let a = k as f32 / n.max(1) as f32 * std::f32::consts::TAU - std::f32::consts::FRAC_PI_2;
        pos[i] = [cx + a.cos() * radius, cy + a.sin() * radius];
    }
    let chord = |a: [f32; 2], b: [f32; 2]| -> Vec<[f32; 2]> {
        // A quadratic Bézier whose control point is the chord's middle pulled 60 % of the way to the centre
        // (as MNE's connectivity circle): links bundle through the middle instead of crossing as a hairball.
        let c = [cx + ((a[0] + b[0]) / 2.0 - cx) * 0.4, cy + ((a[1] + b[1]) / 2.0 - cy) * 0.4];
        let pts = [a, c, b].map(|p| [p[0] as f64, p[1] as f64]);
        flatten(&pts, 16).iter().map(|p| [p[0] as f32, p[1] as f32]).collect()
    };
    let edges = input.edges_above(style.edge_percentile);
    let span = super::span(&edges);
    for &(i, j, w) in &edges {
        let t = (w.abs() / span) as f32;
        let color = edge_colour(w.signum() * span, span).alpha(0.08 + 0.6 * t * t);
        scene.push(Item::Polyline { pts: chord(pos[i], pos[j]), width: 0.5 + 1.5 * t, color });
    }
    if let Some(s) = style.selected.filter(|&s| s < n) {
        for j in (0..n).filter(|&j| j != s && input.pair(s, j) > 0.0) {
            scene.push(Item::Polyline { pts: chord(pos[s], pos[j]), width: 1.5, color: SELECTED });
        }
    }
    let r = (side / 110.0).clamp(2.0, 4.5);
    let mut marks = Vec::new();
    for i in 0..n {
        let fill = fills[i];
        scene.push(Item::Circle { c: pos[i], r, fill, stroke: None });
        if style.highlight.contains(&i) {
            scene.push(Item::Circle {
                c: pos[i],
                r: r + 3.0,
                fill: Rgba([0, 0, 0, 0]),
                stroke: Some((2.0, HIGHLIGHT)),
            });
        }
        if style.selected == Some(i) {
            scene.push(Item::Circle { c: pos[i], r: r + 2.5, fill: Rgba([0, 0, 0, 0]), stroke: Some((2.5, SELECTED)) });
        }
        marks.push(NodeMark { node: i, panel: 0, at: pos[i], r });
    }
    legend(&mut scene, &key, side + 10.0, 16.0, ((side - 30.0) / 16.0).max(1.0) as usize);
    let panel = Panel {
        name: "circle".into(),
        data_limits: [0.0, 1.0, 0.0, 1.0],
        frame: [[0.0, side], [side, 0.0]],
        edges: edges.len(),
    };
    let notes = vec![format!(
        "{} edges at or above the {}th percentile of |weight|; opacity and width grow with |weight|",
        edges.len(),
        style.edge_percentile
    )];
    Ok(Figure { scene, marks, panels: vec![panel], edges: edges.len(), notes })
}
