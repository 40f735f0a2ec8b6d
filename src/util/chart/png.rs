//! PNG of a [`Scene`]: its SVG ([`super::svg::scene`]) rasterised by resvg at a scale (2 for figures), with
//! the font the GUI uses (Ubuntu Light from egui's default fonts) loaded, so no system font is needed.

use super::scene::Scene;
use std::sync::OnceLock;

/// Why a scene could not become a PNG.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("figure of {width} × {height} px at scale {scale} cannot be rasterised (empty or over 16k px)")]
    Size { width: f32, height: f32, scale: f32 },
    #[error("figure SVG not readable: {0}")]
    Svg(String),
    #[error("cannot encode the PNG: {0}")]
    Encode(String),
}

fn options() -> &'static resvg::usvg::Options<'static> {
    static OPTIONS: OnceLock<resvg::usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut o = resvg::usvg::Options { font_family: super::svg::FONT_FAMILY.into(), ..Default::default() };
        o.fontdb_mut().load_font_data(epaint_default_fonts::UBUNTU_LIGHT.to_vec());
        // Charts that ask for the generic family (the radar and heatmap SVGs) get the same font.
        o.fontdb_mut().set_sans_serif_family(super::svg::FONT_FAMILY);
        o
    })
}

/// RGBA pixels (premultiplied by resvg, then demultiplied) of `scene` at `scale`: (width, height, bytes).
pub fn rasterize(scene: &Scene, scale: f32) -> Result<(u32, u32, Vec<u8>), RenderError> {
    rasterize_svg(&super::svg::scene(scene), scale)
}

/// RGBA pixels of an SVG document (its own width and height) at `scale`.
pub fn rasterize_svg(text: &str, scale: f32) -> Result<(u32, u32, Vec<u8>), RenderError> {
    let tree = resvg::usvg::Tree::from_str(text, options()).map_err(|e| RenderError::Svg(e.to_string()))?;
    let size = tree.size();
    let (w, h) = ((size.width() * scale).ceil(), (size.height() * scale).ceil());
    let too_big = || RenderError::Size { width: size.width(), height: size.height(), scale };
    if !(1.0..=16384.0).contains(&w) || !(1.0..=16384.0).contains(&h) {
        return Err(too_big());
    }
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w as u32, h as u32).ok_or_else(too_big)?;
    resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    let rgba = pixmap.pixels().iter().flat_map(|p| {
        let c = p.demultiply();
        [c.red(), c.green(), c.blue(), c.alpha()]
    });
    Ok((w as u32, h as u32, rgba.collect()))
}

/// PNG bytes of `scene` at `scale`.
pub fn render(scene: &Scene, scale: f32) -> Result<Vec<u8>, RenderError> {
    encode(rasterize(scene, scale)?)
}

/// PNG bytes of an SVG document at `scale` (300 dpi: 300 / 96).
pub fn render_svg(text: &str, scale: f32) -> Result<Vec<u8>, RenderError> {
    encode(rasterize_svg(text, scale)?)
}

fn encode((w, h, rgba): (u32, u32, Vec<u8>)) -> Result<Vec<u8>, RenderError> {
    let mut out = Vec::new();
    image::write_buffer_with_format(
        &mut std::io::Cursor::new(&mut out),
        &rgba,
        w,
        h,
        image::ExtendedColorType::Rgba8,
        image::ImageFormat::Png,
    )
    .map_err(|e| RenderError::Encode(e.to_string()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::scene::{Anchor, Item, Rgba, Scene};

    /// A red disc on white lands where it was drawn, at twice the size at scale 2, and text is painted
    /// (the bundled font is found).
    #[test]
    fn scene_rasterises_at_scale() {
        let mut s = Scene::new(40.0, 20.0);
        s.push(Item::Circle { c: [10.0, 10.0], r: 5.0, fill: Rgba([255, 0, 0, 255]), stroke: None });
        let (w, h, px) = super::rasterize(&s, 2.0).unwrap();
        assert_eq!((w, h), (80, 40));
        let at = |x: u32, y: u32| &px[((y * w + x) * 4) as usize..][..4];
        assert_eq!(at(20, 20), [255, 0, 0, 255], "disc centre");
        assert_eq!(at(20, 5), [255, 255, 255, 255], "outside the disc");
        s.text([30.0, 10.0], "Ag", 12.0, Rgba::BLACK, Anchor::Middle);
        let (_, _, with_text) = super::rasterize(&s, 2.0).unwrap();
        let dark = with_text.chunks(4).filter(|p| p[0] < 100).count();
        assert!(dark > 20, "text painted: {dark} dark pixels");
        assert!(super::render(&s, 1.0).unwrap().starts_with(b"\x89PNG"));
        assert!(super::rasterize(&Scene::new(0.0, 10.0), 2.0).is_err());
    }
}

/// Writes each `(stem, SVG)` as `<stem>.svg` and a 300-dpi `<stem>.png` into `dir` (created); returns the files.
pub fn write_svg_and_png(
    figures: &[(String, String)],
    dir: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    let mut written = Vec::new();
    for (stem, text) in figures {
        let svg_path = dir.join(format!("{stem}.svg"));
        std::fs::write(&svg_path, text).map_err(|e| format!("{}: cannot write: {e}", svg_path.display()))?;
        let png = render_svg(text, 300.0 / 96.0).map_err(|e| format!("{stem}: {e}"))?;
        let png_path = dir.join(format!("{stem}.png"));
        std::fs::write(&png_path, png).map_err(|e| format!("{}: cannot write: {e}", png_path.display()))?;
        written.extend([svg_path, png_path]);
    }
    Ok(written)
}
