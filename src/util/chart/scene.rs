//! A figure as drawing primitives in pixels (origin top left, y down), with no knowledge of what it shows:
//! the GUI paints a scene with egui, the CLI writes the same scene as SVG ([`super::svg::scene`]) or PNG
//! ([`super::png::render`]), so a figure on screen and in a paper are one drawing.

/// A colour with alpha (straight, not premultiplied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgba(pub [u8; 4]);

impl Rgba {
    pub const WHITE: Rgba = Rgba([255, 255, 255, 255]);
    pub const BLACK: Rgba = Rgba([0, 0, 0, 255]);

    /// An opaque colour.
    pub fn rgb([r, g, b]: [u8; 3]) -> Rgba {
        Rgba([r, g, b, 255])
    }

    /// The same colour with alpha `a` (0..1).
    pub fn alpha(self, a: f32) -> Rgba {
        let [r, g, b, _] = self.0;
        Rgba([r, g, b, (a.clamp(0.0, 1.0) * 255.0).round() as u8])
    }
}

/// Where a text's anchor point sits along the text (vertically it is the text's middle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// One primitive of a scene.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Line {
        a: [f32; 2],
        b: [f32; 2],
        width: f32,
        color: Rgba,
    },
    /// An open polyline (curves are flattened before they get here).
    Polyline {
        pts: Vec<[f32; 2]>,
        width: f32,
        color: Rgba,
    },
    Circle {
        c: [f32; 2],
        r: f32,
        fill: Rgba,
        stroke: Option<(f32, Rgba)>,
    },
    Rect {
        min: [f32; 2],
        max: [f32; 2],
        fill: Rgba,
    },
    Text {
        at: [f32; 2],
        text: String,
        size: f32,
        color: Rgba,
        anchor: Anchor,
    },
}

/// A figure of `width` × `height` pixels at 1×, painted in item order over `background`.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub width: f32,
    pub height: f32,
    pub background: Rgba,
    pub items: Vec<Item>,
}

impl Scene {
    pub fn new(width: f32, height: f32) -> Scene {
        Scene { width, height, background: Rgba::WHITE, items: Vec::new() }
    }

    pub fn push(&mut self, item: Item) {
        self.items.push(item);
    }

    pub fn text(&mut self, at: [f32; 2], text: impl Into<String>, size: f32, color: Rgba, anchor: Anchor) {
        self.items.push(Item::Text { at, text: text.into(), size, color, anchor });
    }
}

/// Flattens a Bézier curve of 3 (quadratic) or 4 (cubic) control points, or a segment of 2, into `steps`
/// straight pieces (the end points included).
pub fn flatten(pts: &[[f64; 2]], steps: usize) -> Vec<[f64; 2]> {
    match pts {
        [a, b] => vec![*a, *b],
        [p0, p1, p2] => (0..=steps)
            .map(|k| {
                let t = k as f64 / steps as f64;
                let u = 1.0 - t;
                [0, 1].map(|d| u * u * p0[d] + 2.0 * u * t * p1[d] + t * t * p2[d])
            })
            .collect(),
        [p0, p1, p2, p3] => (0..=steps)
            .map(|k| {
                let t = k as f64 / steps as f64;
                let u = 1.0 - t;
                [0, 1]
                    .map(|d| u * u * u * p0[d] + 3.0 * u * u * t * p1[d] + 3.0 * u * t * t * p2[d] + t * t * t * p3[d])
            })
            .collect(),
        other => other.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn flatten_keeps_end_points_and_follows_the_curve() {
        let cubic = super::flatten(&[[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]], 8);
        assert_eq!((cubic.len(), cubic[0], cubic[8]), (9, [0.0, 0.0], [1.0, 0.0]));
        // The cubic's midpoint is (p0 + 3 p1 + 3 p2 + p3) / 8.
        assert_eq!(cubic[4], [0.5, 0.75]);
        let quad = super::flatten(&[[0.0, 0.0], [1.0, 2.0], [2.0, 0.0]], 2);
        assert_eq!(quad, vec![[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]]);
        assert_eq!(super::flatten(&[[0.0, 0.0], [3.0, 4.0]], 8).len(), 2);
    }
}
