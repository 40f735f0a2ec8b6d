//! Figures of a network — glass brain ([`glass`]), circle ([`circle`]), matrix ([`matrix`]) — as
//! [`Scene`]s: the Networks room paints them, `brainlens network plot` writes them as PNG/SVG, and both
//! pick nodes through the same [`NodeMark`]s.

pub mod brain3d;
pub mod circle;
pub mod glass;
pub mod matrix;

use super::atlas::Atlas;
use super::error::{NetworkError, Result};
use super::metrics::summary::{GraphMetrics, NodeMetrics};
use crate::util::chart::colors;
use crate::util::chart::scene::{Anchor, Rgba, Scene};
use serde::Serialize;

/// A per-node value a figure sizes (or colours) nodes by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeValue {
    Constant,
    Degree,
    Strength,
    Clustering,
    Betweenness,
    Participation,
}

impl NodeValue {
    pub const ALL: [NodeValue; 6] = [
        NodeValue::Constant,
        NodeValue::Degree,
        NodeValue::Strength,
        NodeValue::Clustering,
        NodeValue::Betweenness,
        NodeValue::Participation,
    ];

    pub fn name(self) -> &'static str {
        match self {
            NodeValue::Constant => "constant",
            NodeValue::Degree => "degree",
            NodeValue::Strength => "strength",
            NodeValue::Clustering => "clustering",
            NodeValue::Betweenness => "betweenness",
            NodeValue::Participation => "participation",
        }
    }

    pub fn parse(s: &str) -> Result<NodeValue> {
        Self::ALL.into_iter().find(|v| v.name() == s.to_ascii_lowercase()).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|v| v.name()).collect();
            NetworkError::Invalid(format!("unknown node value '{s}': use {}", names.join(", ")))
        })
    }

    pub fn of(self, m: &NodeMetrics) -> f64 {
        match self {
            NodeValue::Constant => 1.0,
            NodeValue::Degree => m.degree,
            NodeValue::Strength => m.strength,
            NodeValue::Clustering => m.clustering,
            NodeValue::Betweenness => m.betweenness,
            NodeValue::Participation => m.participation,
        }
    }
}

/// What node colours stand for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeColour {
    /// The Louvain module of the metrics.
    Module,
    /// The atlas's network (or lobe); modules when the atlas has none.
    Network,
    /// A metric on a sequential scale (light to dark blue over its range).
    Metric(NodeValue),
}

impl NodeColour {
    /// `module`, `network` or a [`NodeValue`] name.
    pub fn parse(s: &str) -> Result<NodeColour> {
        match s.to_ascii_lowercase().as_str() {
            "module" => Ok(NodeColour::Module),
            "network" => Ok(NodeColour::Network),
            other => NodeValue::parse(other).map(NodeColour::Metric).map_err(|_| {
                NetworkError::Invalid(format!(
                    "unknown node colour '{s}': use module, network or a metric (degree, strength, clustering, betweenness, participation)"
                ))
            }),
        }
    }
}

/// What the node colours of a figure mean: categories (legend entries in palette order) or a metric's range.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    Categories(Vec<String>),
    Scale { name: &'static str, lo: f64, hi: f64 },
}

/// How a figure draws: what sizes and colours nodes, which edges show, what is selected.
#[derive(Debug, Clone, PartialEq)]
pub struct Style {
    pub node_size: NodeValue,
    pub node_colour: NodeColour,
    /// Edges whose |weight| reaches this percentile of all region pairs' |weights| (nilearn's
    /// `edge_threshold="95%"`: zeros count) are drawn.
    pub edge_percentile: f64,
    /// Panels of the glass brain: `ortho` (x, y, z), or nilearn's letters (`x`, `y`, `z`, `l`, `r`, `lzry`, …).
    pub display_mode: String,
    pub selected: Option<usize>,
    /// Regions to ring (e.g. those an agent cites).
    pub highlight: Vec<usize>,
    /// Height of the figure at 1× in pixels.
    pub height: f32,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            node_size: NodeValue::Strength,
            node_colour: NodeColour::Network,
            edge_percentile: 95.0,
            display_mode: "ortho".into(),
            selected: None,
            highlight: Vec::new(),
            height: 300.0,
        }
    }
}

/// The network a figure draws: `weights` is the row-major n × n matrix (the thresholded one the metrics
/// ran on), with its metrics and atlas.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub n: usize,
    pub weights: &'a [f64],
    pub metrics: &'a GraphMetrics,
    pub atlas: Option<&'a Atlas>,
}

impl Input<'_> {
    fn w(&self, i: usize, j: usize) -> f64 {
        self.weights[i * self.n + j]
    }

    /// |weight| of the pair, the larger direction for a directed matrix.
    fn pair(&self, i: usize, j: usize) -> f64 {
        self.w(i, j).abs().max(self.w(j, i).abs())
    }

    /// The colour of each node and what the colours mean.
    fn fills(&self, colour: NodeColour) -> (Vec<Rgba>, Key) {
        if let NodeColour::Metric(v) = colour {
            let vals: Vec<f64> = self.metrics.nodes.iter().map(|m| v.of(m)).collect();
            let (lo, hi) = vals.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(*x), b.max(*x)));
            // The scale starts at 20 % so the weakest node still shows on white.
            let span = (hi - lo).max(1e-12);
            let fill = |x: f64| Rgba::rgb(colors::sequential(0.2 + 0.8 * (x - lo) / span, 0.0, 1.0));
            return (vals.iter().map(|&x| fill(x)).collect(), Key::Scale { name: v.name(), lo, hi });
        }
        let (cat, names) = self.categories(colour);
        (cat.iter().map(|&k| Rgba::rgb(colors::category(k))).collect(), Key::Categories(names))
    }

    /// The category of each node and the categories' names, by `colour` (modules when the atlas has no
    /// networks, or for a metric colour).
    fn categories(&self, colour: NodeColour) -> (Vec<usize>, Vec<String>) {
        match (colour, self.atlas.and_then(|a| a.networks.as_ref())) {
            (NodeColour::Network, Some(nets)) if nets.len() == self.n => {
                let mut names: Vec<String> = Vec::new();
                let idx = nets
                    .iter()
                    .map(|k| {
                        names.iter().position(|n| n == k).unwrap_or_else(|| {
                            names.push(k.clone());
                            names.len() - 1
                        })
                    })
                    .collect();
                (idx, names)
            }
            _ => {
                let idx: Vec<usize> = self.metrics.nodes.iter().map(|m| m.module.saturating_sub(1)).collect();
                let k = idx.iter().max().map_or(0, |m| m + 1);
                (idx, (1..=k).map(|m| format!("module {m}")).collect())
            }
        }
    }

    /// The edges (i < j) drawn at `percentile` (nilearn's rule: `scoreatpercentile` of the lower
    /// triangle's |weights|, zeros included, plus 1e-5), weakest first so the strongest are painted last.
    pub fn edges_above(&self, percentile: f64) -> Vec<(usize, usize, f64)> {
        let n = self.n;
        let mut all: Vec<f64> =
            (0..n).flat_map(|i| (0..i).map(move |j| (i, j))).map(|(i, j)| self.pair(i, j)).collect();
        all.sort_by(f64::total_cmp);
        let cut = crate::util::quantile::percentile(&all, percentile.clamp(0.0, 100.0)) + 1e-5;
        let mut edges: Vec<(usize, usize, f64)> = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .filter(|&(i, j)| self.pair(i, j) >= cut && self.pair(i, j) > 0.0)
            .map(|(i, j)| {
                let w = if self.w(i, j).abs() >= self.w(j, i).abs() { self.w(i, j) } else { self.w(j, i) };
                (i, j, w)
            })
            .collect();
        edges.sort_by(|a, b| a.2.abs().total_cmp(&b.2.abs()));
        edges
    }
}

/// The largest |weight| among drawn edges (the edge colour scale runs over ± it; never 0).
pub fn span(edges: &[(usize, usize, f64)]) -> f64 {
    edges.iter().fold(0.0f64, |m, e| m.max(e.2.abs())).max(1e-12)
}

/// A node drawn at `at` (figure pixels at 1×) with radius `r` in panel `panel`: what clicks and hovers hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeMark {
    pub node: usize,
    pub panel: usize,
    pub at: [f32; 2],
    pub r: f32,
}

/// One panel of a figure and where its data frame lies in pixels: `frame[0]` is the pixel of the data
/// point (x min, y min), `frame[1]` of (x max, y max) (x min is right of x max when the axis is inverted).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Panel {
    pub name: String,
    pub data_limits: [f64; 4],
    pub frame: [[f32; 2]; 2],
    /// Edges drawn in this panel.
    pub edges: usize,
}

/// A drawn figure: the scene, the nodes to pick, its panels, the number of edges drawn and notes the
/// viewer shows with it (where positions come from, what was left out).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub scene: Scene,
    pub marks: Vec<NodeMark>,
    pub panels: Vec<Panel>,
    pub edges: usize,
    pub notes: Vec<String>,
}

impl Figure {
    /// The node under `p` (figure pixels), the nearest within its radius + 3 px.
    pub fn pick(&self, p: [f32; 2]) -> Option<usize> {
        let d = |m: &NodeMark| ((m.at[0] - p[0]).powi(2) + (m.at[1] - p[1]).powi(2)).sqrt();
        self.marks.iter().filter(|m| d(m) <= m.r + 3.0).min_by(|a, b| d(a).total_cmp(&d(b))).map(|m| m.node)
    }
}

/// Radii of the nodes: area proportional to `value` (as nilearn's `node_size`), 1.5 to `max` px.
fn radii(input: &Input, value: NodeValue, max: f32) -> Vec<f32> {
    let v: Vec<f64> = input.metrics.nodes.iter().map(|m| value.of(m).max(0.0)).collect();
    let top = v.iter().copied().fold(0.0, f64::max);
    v.iter().map(|x| if top > 0.0 { (max * (x / top).sqrt() as f32).max(1.5) } else { max * 0.5 }).collect()
}

/// The colour of an edge of weight `w` among edges up to ±`span` (blue–white–red, as nilearn's RdBu_r).
fn edge_colour(w: f64, span: f64) -> Rgba {
    Rgba::rgb(colors::diverging(w, span))
}

const SELECTED: Rgba = Rgba([255, 170, 0, 255]);
const HIGHLIGHT: Rgba = Rgba([0, 170, 230, 255]);
const GREY: Rgba = Rgba([90, 90, 90, 255]);

/// The legend of `key` in rows from `top` at `left`, at most `max_rows` rows (then "… k more").
fn legend(scene: &mut Scene, key: &Key, left: f32, top: f32, max_rows: usize) {
    let names = match key {
        Key::Categories(names) => names,
        Key::Scale { name, lo, hi } => {
            scene.text([left, top], format!("node colour: {name}"), 11.0, GREY, Anchor::Start);
            for (k, (t, v)) in [(0.2, lo), (1.0, hi)].into_iter().enumerate() {
                let y = top + 16.0 * (k + 1) as f32;
                let fill = Rgba::rgb(colors::sequential(t, 0.0, 1.0));
                scene.push(crate::util::chart::scene::Item::Circle { c: [left + 5.0, y], r: 5.0, fill, stroke: None });
                scene.text([left + 15.0, y], format!("{v:.3}"), 11.0, GREY, Anchor::Start);
            }
            return;
        }
    };
    for (k, name) in names.iter().enumerate().take(max_rows) {
        let y = top + 16.0 * k as f32;
        scene.push(crate::util::chart::scene::Item::Rect {
            min: [left, y - 5.0],
            max: [left + 10.0, y + 5.0],
            fill: Rgba::rgb(colors::category(k)),
        });
        scene.text([left + 15.0, y], name.clone(), 11.0, GREY, Anchor::Start);
    }
    if names.len() > max_rows {
        let y = top + 16.0 * max_rows as f32;
        scene.text([left, y], format!("… {} more", names.len() - max_rows), 11.0, GREY, Anchor::Start);
    }
}

/// A vertical colour bar of the edge scale ±`span` at `x`, from `top` to `bottom`.
fn colour_bar(scene: &mut Scene, x: f32, top: f32, bottom: f32, span: f64, title: &str) {
    let steps = 48;
    let h = (bottom - top) / steps as f32;
    for k in 0..steps {
        let v = span * (1.0 - 2.0 * (k as f64 + 0.5) / steps as f64);
        scene.push(crate::util::chart::scene::Item::Rect {
            min: [x, top + h * k as f32],
            max: [x + 10.0, top + h * (k + 1) as f32 + 0.5],
            fill: edge_colour(v, span),
        });
    }
    for (v, y) in [(span, top), (0.0, (top + bottom) / 2.0), (-span, bottom)] {
        scene.text([x + 14.0, y], format!("{v:.2}"), 10.0, GREY, Anchor::Start);
    }
    scene.text([x, top - 12.0], title, 10.0, GREY, Anchor::Start);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::Connectome;
    use crate::network::metrics::summary::{MetricsOptions, summarize_prepared};

    fn input_of(w: &[f64], n: usize) -> (Vec<f64>, GraphMetrics) {
        let c = Connectome::from_matrix("test", n, n, w.to_vec(), None, crate::network::connectome::Asymmetry::Error)
            .unwrap();
        let m = summarize_prepared(&c, w, &MetricsOptions::default());
        (w.to_vec(), m)
    }

    /// nilearn's rule by hand: the lower triangle of a 4-node matrix holds |w| = 0, 0, 0.2, 0.4, 0.6, 0.8
    /// (sorted); numpy's linear 50th percentile is 0.3, so 0.4, 0.6 and 0.8 are drawn, weakest first; at the
    /// 100th percentile the cut is 0.8 + 1e-5 and nothing is drawn.
    #[test]
    fn edges_follow_nilearns_percentile_rule() {
        #[rustfmt::skip]
        let w = [0.0, 0.2, 0.0, 0.8,
                 0.2, 0.0, -0.6, 0.0,
                 0.0, -0.6, 0.0, 0.4,
                 0.8, 0.0, 0.4, 0.0];
        let (w, m) = input_of(&w, 4);
        let input = Input { n: 4, weights: &w, metrics: &m, atlas: None };
        assert_eq!(input.edges_above(50.0), vec![(2, 3, 0.4), (1, 2, -0.6), (0, 3, 0.8)]);
        assert!(input.edges_above(100.0).is_empty());
        assert_eq!(input.edges_above(0.0).len(), 4, "0 % keeps every non-zero pair");
    }

    /// Node colours by a metric run over its range (the legend says which metric and its bounds); by
    /// network without atlas networks they fall back to modules.
    #[test]
    fn node_colours_by_metric_and_fallback_to_modules() {
        let n = 6;
        let w: Vec<f64> =
            (0..n * n).map(|k| if k / n != k % n { ((k / n + k % n) % 4) as f64 / 4.0 } else { 0.0 }).collect();
        let (w, m) = input_of(&w, n);
        let input = Input { n, weights: &w, metrics: &m, atlas: None };
        let (fills, key) = input.fills(NodeColour::parse("strength").unwrap());
        let s: Vec<f64> = m.nodes.iter().map(|x| x.strength).collect();
        let (lo, hi) = (s.iter().copied().fold(f64::INFINITY, f64::min), s.iter().copied().fold(0.0, f64::max));
        assert_eq!(key, Key::Scale { name: "strength", lo, hi });
        assert_eq!(fills.len(), n);
        let (_, key) = input.fills(NodeColour::Network);
        assert!(matches!(key, Key::Categories(names) if names.iter().all(|k| k.starts_with("module "))));
        assert!(NodeColour::parse("colour").unwrap_err().to_string().contains("unknown node colour 'colour'"));
    }

    /// A glass brain needs coordinates for every region: an atlas of another size or without coordinates
    /// is refused with its name; a click within a node's radius picks it, one far from every node none.
    #[test]
    fn glass_brain_refuses_atlases_that_do_not_fit_and_picks_nodes() {
        let aal = Atlas::builtin("aal90").unwrap();
        let n = 90;
        let w: Vec<f64> =
            (0..n * n).map(|k| if k / n != k % n { ((k / n + k % n) % 7) as f64 / 7.0 } else { 0.0 }).collect();
        let (w, m) = input_of(&w, n);
        let fig = glass::draw(&Input { n, weights: &w, metrics: &m, atlas: Some(&aal) }, &Style::default()).unwrap();
        assert_eq!(fig.panels.len(), 3);
        assert_eq!(fig.marks.len(), 3 * n, "every node in each of x, y, z");
        let mark = &fig.marks[5];
        assert_eq!(fig.pick(mark.at), Some(mark.node));
        assert_eq!(fig.pick([-50.0, -50.0]), None);
        let s100 = Atlas::builtin("schaefer100").unwrap();
        let e = glass::draw(&Input { n, weights: &w, metrics: &m, atlas: Some(&s100) }, &Style::default()).unwrap_err();
        assert!(e.to_string().contains("has 100 regions with coordinates, the matrix 90"), "{e}");
        let bare = Atlas { coords: None, ..aal.clone() };
        let e = glass::draw(&Input { n, weights: &w, metrics: &m, atlas: Some(&bare) }, &Style::default()).unwrap_err();
        assert!(e.to_string().contains("has no coordinates"), "{e}");
        let lr = Style { display_mode: "lr".into(), ..Style::default() };
        let fig = glass::draw(&Input { n, weights: &w, metrics: &m, atlas: Some(&aal) }, &lr).unwrap();
        let coords = aal.coords.as_ref().unwrap();
        assert!(fig.marks.iter().all(|k| (k.panel == 0) == (coords[k.node][0] <= 0.0) || coords[k.node][0] == 0.0));
    }
}
