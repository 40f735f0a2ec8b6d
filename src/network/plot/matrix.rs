//! The matrix figure: the thresholded matrix in atlas, module or network order, one rectangle per run of
//! equal colour in a row (white cells left to the background), the diverging scale of the GUI's heatmap
//! (±`limit`, weights scaled by max |w|) and its colour bar.

use super::{Figure, Input, NodeMark, Panel, Style, colour_bar};
use super::{NodeColour, SELECTED};
use crate::network::error::Result;
use crate::util::chart::colors;
use crate::util::chart::scene::{Item, Rgba, Scene};

/// Row order of the matrix and circle: atlas order, or grouped by module / network (then index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Atlas,
    Module,
    Network,
}

/// Region indices in `order`.
pub fn order(input: &Input, order: Order) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..input.n).collect();
    match order {
        Order::Atlas => {}
        Order::Module => idx.sort_by_key(|&i| (input.metrics.nodes[i].module, i)),
        Order::Network => {
            let (cat, _) = input.categories(NodeColour::Network);
            idx.sort_by_key(|&i| (cat[i], i));
        }
    }
    idx
}

/// The colour of weight `w` in the heatmap: `w / max|w|` on the diverging scale saturating at ±`limit`.
pub fn cell_colour(w: f64, max_abs: f64, limit: f64) -> [u8; 3] {
    colors::diverging(w / max_abs.max(1e-12), limit)
}

/// Draws the matrix of `input` in `rows` order, saturating at ±`limit` of max |w|.
pub fn draw(input: &Input, style: &Style, rows: Order, limit: f64) -> Result<Figure> {
    let side = style.height.max(60.0);
    let n = input.n.max(1);
    let idx = order(input, rows);
    let cell = side / n as f32;
    let max_abs = input.weights.iter().fold(0.0f64, |m, w| m.max(w.abs()));
    let mut scene = Scene::new(side + 70.0, side);
    for (r, &i) in idx.iter().enumerate() {
        let mut c = 0;
        while c < idx.len() {
            let colour = cell_colour(input.w(i, idx[c]), max_abs, limit);
            let start = c;
            while c < idx.len() && cell_colour(input.w(i, idx[c]), max_abs, limit) == colour {
                c += 1;
            }
            if colour != [255, 255, 255] {
                let (y, x0, x1) = (r as f32 * cell, start as f32 * cell, c as f32 * cell);
                scene.push(Item::Rect { min: [x0, y], max: [x1, y + cell], fill: Rgba::rgb(colour) });
            }
        }
    }
    let mut marks = Vec::new();
    for (r, &i) in idx.iter().enumerate() {
        let y = (r as f32 + 0.5) * cell;
        if style.selected == Some(i) {
            let line = |a, b| Item::Line { a, b, width: 1.0, color: SELECTED };
            scene.push(line([0.0, y], [side, y]));
            scene.push(line([y, 0.0], [y, side]));
        }
        marks.push(NodeMark { node: i, panel: 0, at: [y, y], r: cell / 2.0 });
    }
    colour_bar(&mut scene, side + 12.0, 20.0, side - 20.0, limit, "w / max|w|");
    let panel = Panel {
        name: "matrix".into(),
        data_limits: [0.0, n as f64, 0.0, n as f64],
        frame: [[0.0, side], [side, 0.0]],
        edges: 0,
    };
    let notes = vec![format!("{} order; colour saturates at ±{limit} of max |w| = {max_abs:.4}", rows.name())];
    Ok(Figure { scene, marks, panels: vec![panel], edges: 0, notes })
}

impl Order {
    pub fn name(self) -> &'static str {
        match self {
            Order::Atlas => "atlas",
            Order::Module => "module",
            Order::Network => "network",
        }
    }
}
