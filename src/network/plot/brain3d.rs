//! The 3-D view: a translucent cortical surface with the network inside, rendered in software (orthographic
//! camera, z-buffer, Gouraud-shaded surface, shaded spheres for nodes, depth-tested lines for edges), so the
//! GUI, `network plot --view 3d` (PNG) and the rotating GIF are the same pixels with no GPU needed. Nodes
//! behind the cortex show through it; the selected and cited regions are ringed; node marks pick regions.

use super::{Figure, Input, NodeMark, Panel, Style, edge_colour};
use super::{HIGHLIGHT, SELECTED};
use crate::network::error::{NetworkError, Result};
use crate::network::surface::Surface;
use crate::util::chart::scene::{Rgba, Scene};

/// Where the camera looks from: azimuth about the vertical axis (0 = from the right, +x; 90 = from the
/// front, +y), elevation above the horizontal (90 = from the top), zoom (1 fits the brain), pan in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub azimuth: f32,
    pub elevation: f32,
    pub zoom: f32,
    pub pan: [f32; 2],
}

impl Default for Camera {
    fn default() -> Self {
        Camera { azimuth: 180.0, elevation: 15.0, zoom: 1.0, pan: [0.0, 0.0] }
    }
}

impl Camera {
    /// View presets: left, right, top, front, back (zoom and pan kept).
    pub fn preset(self, name: &str) -> Result<Camera> {
        let (azimuth, elevation) = match name {
            "left" => (180.0, 0.0),
            "right" => (0.0, 0.0),
            "front" => (90.0, 0.0),
            "back" => (270.0, 0.0),
            "top" => (270.0, 90.0),
            other => {
                return Err(NetworkError::Invalid(format!(
                    "unknown view '{other}': use left, right, top, front or back"
                )));
            }
        };
        Ok(Camera { azimuth, elevation, ..self })
    }

    /// The camera's (right, up, towards-viewer) unit vectors.
    fn basis(&self) -> [[f32; 3]; 3] {
        let (az, el) = (self.azimuth.to_radians(), self.elevation.clamp(-89.9, 89.9).to_radians());
        let d = [el.cos() * az.cos(), el.cos() * az.sin(), el.sin()];
        // right = up_world × d (normalised), up = d × right.
        let r = normalize([-d[1], d[0], 0.0]);
        let u = [d[1] * r[2] - d[2] * r[1], d[2] * r[0] - d[0] * r[2], d[0] * r[1] - d[1] * r[0]];
        [r, u, d]
    }
}

fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-12);
    [v[0] / l, v[1] / l, v[2] / l]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// A surface ready to draw: its vertices, triangles, vertex normals and vertex colours.
pub struct Mesh {
    pub surface: Surface,
    normals: Vec<[f32; 3]>,
    /// The surface is brainspace's conte69, on which Schaefer-100/200/400 parcels are painted with the node
    /// colours (the parcellation is per conte69 vertex).
    pub conte69: bool,
    /// Centre and radius of the bounding sphere (what zoom 1 fits).
    centre: [f32; 3],
    radius: f32,
    /// Triangles wind counter-clockwise seen from outside (decided from the mesh: back faces are culled).
    outward: bool,
}

impl Mesh {
    pub fn new(surface: Surface) -> Mesh {
        let mut normals = vec![[0.0f32; 3]; surface.vertices.len()];
        for t in &surface.triangles {
            let [a, b, c] = t.map(|i| surface.vertices[i as usize]);
            let (e1, e2) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
            let n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
            for &i in t {
                let m = &mut normals[i as usize];
                (m[0], m[1], m[2]) = (m[0] + n[0], m[1] + n[1], m[2] + n[2]);
            }
        }
        // The winding that makes face normals point away from the centre on the whole, for culling.
        let outward = surface
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| surface.vertices[i as usize]);
                let (e1, e2) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
                let n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
                let m = [(a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0, (a[2] + b[2] + c[2]) / 3.0];
                dot(n, m) as f64
            })
            .sum::<f64>()
            > 0.0;
        let normals = normals.into_iter().map(normalize).collect();
        let (lo, hi) = surface.vertices.iter().fold(([f32::MAX; 3], [f32::MIN; 3]), |(lo, hi), v| {
            ([lo[0].min(v[0]), lo[1].min(v[1]), lo[2].min(v[2])], [hi[0].max(v[0]), hi[1].max(v[1]), hi[2].max(v[2])])
        });
        let centre = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0, (lo[2] + hi[2]) / 2.0];
        let radius = surface.vertices.iter().map(|v| dist(*v, centre)).fold(1.0, f32::max);
        Mesh { surface, normals, conte69: false, centre, radius, outward }
    }
}

/// The mesh of a surface spec (see [`crate::network::surface::load`]) and its name; conte69 is marked for
/// parcel painting.
pub fn load_mesh(spec: &str) -> Result<(Mesh, String)> {
    let (surface, name) = crate::network::surface::load(spec)?;
    let mut mesh = Mesh::new(surface);
    mesh.conte69 = name == crate::network::surface::CONTE69;
    Ok((mesh, name))
}

fn dist(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Buffers of one frame: the nearest surface fragment and the nearest node/edge fragment of each pixel.
struct Buffers {
    w: usize,
    h: usize,
    surf_z: Vec<f32>,
    surf_rgb: Vec<[f32; 3]>,
    obj_z: Vec<f32>,
    obj_rgb: Vec<[u8; 3]>,
}

impl Buffers {
    fn new(w: usize, h: usize) -> Buffers {
        Buffers {
            w,
            h,
            surf_z: vec![f32::NEG_INFINITY; w * h],
            surf_rgb: vec![[0.0; 3]; w * h],
            obj_z: vec![f32::NEG_INFINITY; w * h],
            obj_rgb: vec![[0; 3]; w * h],
        }
    }

    fn object(&mut self, x: i32, y: i32, z: f32, rgb: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as usize) < self.w && (y as usize) < self.h {
            let k = y as usize * self.w + x as usize;
            if z > self.obj_z[k] {
                self.obj_z[k] = z;
                self.obj_rgb[k] = rgb;
            }
        }
    }
}

/// A 3-D frame: RGBA pixels and the node marks (pixels) for picking.
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    pub marks: Vec<NodeMark>,
    pub edges: usize,
}

/// How translucent the cortex is (its opacity over what is behind it).
const SURFACE_ALPHA: f32 = 0.35;

/// Renders `input` (the atlas must have coordinates) inside `mesh` seen by `camera`, `w` × `h` pixels.
pub fn render(input: &Input, style: &Style, mesh: &Mesh, camera: &Camera, w: u32, h: u32) -> Result<Frame> {
    let coords = super::glass::coords_of(input)?;
    let (w, h) = (w.clamp(16, 8192) as usize, h.clamp(16, 8192) as usize);
    let [r, u, d] = camera.basis();
    let s = camera.zoom.max(0.05) * 0.58 * w.min(h) as f32 / mesh.radius;
    let (cx, cy) = (w as f32 / 2.0 + camera.pan[0], h as f32 / 2.0 + camera.pan[1]);
    let c = mesh.centre;
    let project = |p: [f32; 3]| {
        let q = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
        [cx + s * dot(q, r), cy - s * dot(q, u), dot(q, d)]
    };
    let (fills, _) = input.fills(style.node_colour);
    let painted = parcel_colours(input, mesh, &fills);
    let mut buf = Buffers::new(w, h);
    surface_pass(&mut buf, mesh, painted.as_deref(), &project, d);
    let edges = input.edges_above(style.edge_percentile);
    let span = super::span(&edges);
    let at: Vec<[f32; 3]> = coords.iter().map(|p| project([p[0] as f32, p[1] as f32, p[2] as f32])).collect();
    for &(i, j, wt) in &edges {
        let Rgba([cr, cg, cb, _]) = edge_colour(wt, span);
        line(&mut buf, at[i], at[j], 1.0 + 1.5 * (wt.abs() / span) as f32, [cr, cg, cb]);
    }
    if let Some(sel) = style.selected.filter(|&k| k < input.n) {
        for j in (0..input.n).filter(|&j| j != sel && input.pair(sel, j) > 0.0) {
            line(&mut buf, at[sel], at[j], 1.2, [SELECTED.0[0], SELECTED.0[1], SELECTED.0[2]]);
        }
    }
    let radii = super::radii(input, style.node_size, 7.0 * (h as f32 / 500.0).max(0.5) * camera.zoom.sqrt());
    let mut marks = Vec::new();
    for i in 0..input.n {
        let ring = if style.selected == Some(i) {
            Some(SELECTED)
        } else if style.highlight.contains(&i) {
            Some(HIGHLIGHT)
        } else {
            None
        };
        let Rgba([fr, fg, fb, _]) = fills[i];
        sphere(&mut buf, at[i], radii[i], [fr, fg, fb], ring.map(|Rgba([a, b, c, _])| [a, b, c]));
        marks.push(NodeMark { node: i, panel: 0, at: [at[i][0], at[i][1]], r: radii[i] });
    }
    // Front-most first, so a pick prefers the node nearest the viewer.
    marks.sort_by(|a, b| at[b.node][2].total_cmp(&at[a.node][2]));
    let alpha = if painted.is_some() { PAINTED_ALPHA } else { SURFACE_ALPHA };
    Ok(Frame { width: w as u32, height: h as u32, rgba: composite(&buf, alpha), marks, edges: edges.len() })
}

/// How opaque a cortex painted with parcel colours is.
const PAINTED_ALPHA: f32 = 0.85;

/// On conte69 with a Schaefer atlas of 100, 200 or 400 regions: each vertex in its parcel's node colour
/// (medial wall grey); otherwise none.
fn parcel_colours(input: &Input, mesh: &Mesh, fills: &[Rgba]) -> Option<Vec<[u8; 3]>> {
    let schaefer = input.atlas.is_some_and(|a| a.name.starts_with("Schaefer-"));
    if !mesh.conte69 || !schaefer {
        return None;
    }
    let parcels = crate::network::atlas::schaefer_parcels(input.n).ok()?;
    (parcels.len() == mesh.surface.vertices.len()).then(|| {
        parcels
            .iter()
            .map(|&p| match p {
                0 => [200, 200, 200],
                k => fills.get(k as usize - 1).map_or([200, 200, 200], |Rgba([r, g, b, _])| [*r, *g, *b]),
            })
            .collect()
    })
}

/// Rasterises the front-facing triangles into the surface buffers (nearest fragment kept), Gouraud-shaded
/// by the vertex normals against a light at the viewer; the rows are split between two threads.
fn surface_pass(
    buf: &mut Buffers,
    mesh: &Mesh,
    colours: Option<&[[u8; 3]]>,
    project: &(dyn Fn([f32; 3]) -> [f32; 3] + Sync),
    view: [f32; 3],
) {
    let pts: Vec<[f32; 3]> = mesh.surface.vertices.iter().map(|&v| project(v)).collect();
    let grey = [200u8, 200, 200];
    let shade: Vec<[f32; 3]> = (0..pts.len())
        .map(|i| {
            let k = 0.35 + 0.65 * dot(mesh.normals[i], view).abs();
            let base = colours.map_or(grey, |c| c[i]);
            [base[0] as f32 * k, base[1] as f32 * k, base[2] as f32 * k]
        })
        .collect();
    // Screen y grows downwards, so a counter-clockwise (outward) triangle has a negative signed area.
    let sign = if mesh.outward { -1.0 } else { 1.0 };
    let front: Vec<&[u32; 3]> = mesh
        .surface
        .triangles
        .iter()
        .filter(|t| {
            let [a, b, c] = t.map(|i| pts[i as usize]);
            sign * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])) > 1e-9
        })
        .collect();
    let w = buf.w;
    let half = buf.h.div_ceil(2);
    let (z_top, z_bottom) = buf.surf_z.split_at_mut(half * w);
    let (c_top, c_bottom) = buf.surf_rgb.split_at_mut(half * w);
    std::thread::scope(|scope| {
        let (pts, shade, front) = (&pts, &shade, &front);
        scope.spawn(move || raster_rows(front, pts, shade, w, 0, z_top, c_top));
        raster_rows(front, pts, shade, w, half, z_bottom, c_bottom);
    });
}

/// Rasterises `tris` into a band of rows starting at image row `first` (`z` and `rgb` hold the band),
/// with the barycentric weights stepped per pixel.
fn raster_rows(
    tris: &[&[u32; 3]],
    pts: &[[f32; 3]],
    shade: &[[f32; 3]],
    w: usize,
    first: usize,
    z: &mut [f32],
    rgb: &mut [[f32; 3]],
) {
    let rows = z.len() / w.max(1);
    if rows == 0 {
        return;
    }
    let (ylo, yhi) = (first as f32, (first + rows) as f32);
    for t in tris {
        let [a, b, c] = t.map(|i| pts[i as usize]);
        let ys = (a[1].min(b[1]).min(c[1]), a[1].max(b[1]).max(c[1]));
        if ys.1 < ylo || ys.0 >= yhi {
            continue;
        }
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        let inv = 1.0 / area;
        let x0 = a[0].min(b[0]).min(c[0]).floor().max(0.0) as usize;
        let x1 = (a[0].max(b[0]).max(c[0]).ceil().max(0.0) as usize).min(w - 1);
        let r0 = (ys.0.floor().max(ylo)) as usize;
        let r1 = (ys.1.ceil() as usize).min(first + rows - 1);
        let [sa, sb, sc] = t.map(|i| shade[i as usize]);
        // Barycentric weights of b→c (w0) and c→a (w1) change linearly along a row.
        let d0x = -(c[1] - b[1]) * inv;
        let d1x = -(a[1] - c[1]) * inv;
        for y in r0..=r1 {
            let py = y as f32 + 0.5;
            let px = x0 as f32 + 0.5;
            let mut w0 = ((b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px)) * inv;
            let mut w1 = ((c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px)) * inv;
            let row = (y - first) * w;
            for x in x0..=x1 {
                let w2 = 1.0 - w0 - w1;
                if w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0 {
                    let depth = w0 * a[2] + w1 * b[2] + w2 * c[2];
                    let k = row + x;
                    if depth > z[k] {
                        z[k] = depth;
                        rgb[k] = [0, 1, 2].map(|ch| w0 * sa[ch] + w1 * sb[ch] + w2 * sc[ch]);
                    }
                }
                w0 += d0x;
                w1 += d1x;
            }
        }
    }
}

/// A depth-tested line about `width` pixels wide between two projected points (a DDA along the major
/// axis, widened across it).
fn line(buf: &mut Buffers, a: [f32; 3], b: [f32; 3], width: f32, rgb: [u8; 3]) {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let steps = dx.abs().max(dy.abs()).ceil().max(1.0) as usize;
    let across = width.round().max(1.0) as i32;
    let steep = dy.abs() > dx.abs();
    for k in 0..=steps {
        let t = k as f32 / steps as f32;
        let (x, y, z) = (a[0] + dx * t, a[1] + dy * t, a[2] + (b[2] - a[2]) * t);
        for o in 0..across {
            let off = o - across / 2;
            let (px, py) = if steep { (x as i32 + off, y as i32) } else { (x as i32, y as i32 + off) };
            buf.object(px, py, z, rgb);
        }
    }
}

/// A shaded sphere of radius `r` pixels at a projected point, with an optional ring around it.
fn sphere(buf: &mut Buffers, p: [f32; 3], r: f32, rgb: [u8; 3], ring: Option<[u8; 3]>) {
    let outer = if ring.is_some() { r + 3.0 } else { r };
    let ri = outer.ceil() as i32;
    for dy in -ri..=ri {
        for dx in -ri..=ri {
            let d2 = (dx * dx + dy * dy) as f32;
            let (x, y) = (p[0] as i32 + dx, p[1] as i32 + dy);
            if d2 <= r * r {
                let nz = (1.0 - d2 / (r * r)).sqrt();
                let k = 0.3 + 0.7 * nz;
                // Depth in mm-ish units: the sphere bulges towards the viewer by its radius.
                buf.object(x, y, p[2] + nz * r * 0.5, rgb.map(|c| (c as f32 * k).min(255.0) as u8));
            } else if let Some(c) = ring.filter(|_| d2 <= outer * outer && d2 >= (outer - 2.0).powi(2)) {
                buf.object(x, y, p[2] + r, c);
            }
        }
    }
}

/// Nodes and edges in front of the cortex as they are; behind it, seen through it; elsewhere the cortex
/// over a white background.
fn composite(buf: &Buffers, alpha: f32) -> Vec<u8> {
    let mut out = Vec::with_capacity(buf.w * buf.h * 4);
    for k in 0..buf.w * buf.h {
        let obj = (buf.obj_z[k] > f32::NEG_INFINITY).then(|| buf.obj_rgb[k].map(|c| c as f32));
        let surf = (buf.surf_z[k] > f32::NEG_INFINITY).then_some(buf.surf_rgb[k]);
        let rgb = match (obj, surf) {
            (Some(o), Some(_)) if buf.obj_z[k] >= buf.surf_z[k] => o,
            (Some(o), Some(s)) => [0, 1, 2].map(|c| alpha * s[c] + (1.0 - alpha) * o[c]),
            (Some(o), None) => o,
            (None, Some(s)) => [0, 1, 2].map(|c| alpha * s[c] + (1.0 - alpha) * 255.0),
            (None, None) => [255.0; 3],
        };
        out.extend(rgb.map(|c| c.clamp(0.0, 255.0) as u8));
        out.push(255);
    }
    out
}

/// The 3-D view as a figure for the CLI's and GUI's common paths: no vector scene (the pixels are the
/// figure), its marks and a note saying what the surface is.
pub fn figure_of(frame: &Frame, surface_name: &str) -> Figure {
    let panel = Panel {
        name: "3d".into(),
        data_limits: [0.0, 1.0, 0.0, 1.0],
        frame: [[0.0, frame.height as f32], [frame.width as f32, 0.0]],
        edges: frame.edges,
    };
    Figure {
        scene: Scene::new(frame.width as f32, frame.height as f32),
        marks: frame.marks.clone(),
        panels: vec![panel],
        edges: frame.edges,
        notes: vec![format!("surface: {surface_name}; nodes at their atlas coordinates, the cortex drawn translucent")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::atlas::Atlas;
    use crate::network::metrics::summary::{MetricsOptions, prepare, summarize_prepared};

    fn network() -> (crate::network::Connectome, Vec<f64>, crate::network::metrics::summary::GraphMetrics) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/networks/group-train706_fc.npz");
        let c = crate::network::io::load(&path, crate::network::connectome::Asymmetry::Error).unwrap();
        let o = MetricsOptions { proportional: Some(0.2), ..Default::default() };
        let w = prepare(&c, &o);
        let m = summarize_prepared(&c, &w, &o);
        (c, w, m)
    }

    /// The camera looks where its presets say: from the left, a left-hemisphere node (x < 0) is nearer the
    /// viewer than a right one and the front (y > 0) is on the left of the picture; picking marks come
    /// front-most first.
    #[test]
    fn presets_and_depth_order() {
        let (c, w, m) = network();
        let atlas = Atlas::builtin("schaefer100").unwrap();
        let input = Input { n: c.n, weights: &w, metrics: &m, atlas: Some(&atlas) };
        let (mesh, _) = load_mesh("pial").unwrap();
        let cam = Camera::default().preset("left").unwrap();
        let f = render(&input, &Style::default(), &mesh, &cam, 390, 300).unwrap();
        assert_eq!((f.width, f.height, f.rgba.len()), (390, 300, 390 * 300 * 4));
        let coords = atlas.coords.as_ref().unwrap();
        let rank = |i: usize| f.marks.iter().position(|k| k.node == i).unwrap();
        let (left, right) = (0..50).chain(50..100).partition::<Vec<usize>, _>(|&i| coords[i][0] < 0.0);
        let mean = |v: &[usize]| v.iter().map(|&i| rank(i) as f64).sum::<f64>() / v.len() as f64;
        assert!(mean(&left) < mean(&right), "left-hemisphere nodes first from the left");
        let x = |i: usize| f.marks.iter().find(|k| k.node == i).unwrap().at[0];
        let (front, back) = (0..100).partition::<Vec<usize>, _>(|&i| coords[i][1] > 0.0);
        let mx = |v: &[usize]| v.iter().map(|&i| x(i) as f64).sum::<f64>() / v.len() as f64;
        assert!(mx(&front) < mx(&back), "anterior to the left seen from the left");
        assert!(Camera::default().preset("below").is_err());
    }

    /// On conte69 with Schaefer-100 the cortex carries the node colours (network); on fsaverage5 it is grey
    /// (with no edges drawn, only the nodes are coloured there).
    #[test]
    fn schaefer_parcels_are_painted_on_conte69() {
        let (c, w, m) = network();
        let atlas = Atlas::builtin("schaefer100").unwrap();
        let input = Input { n: c.n, weights: &w, metrics: &m, atlas: Some(&atlas) };
        let colourful = |spec: &str| {
            let (mesh, _) = load_mesh(spec).unwrap();
            let no_edges = Style { edge_percentile: 100.0, ..Style::default() };
            let f = render(&input, &no_edges, &mesh, &Camera::default(), 200, 160).unwrap();
            f.rgba.chunks(4).filter(|p| p[0].abs_diff(p[1]) > 40 || p[1].abs_diff(p[2]) > 40).count()
        };
        let (painted, grey) = (colourful("conte69"), colourful("pial"));
        assert!(painted > 5 * grey.max(1), "painted {painted} vs {grey} coloured pixels");
    }
}
