//! `--screenshot PATH` (render the first settled frame to a PNG, then exit) and `--frame-stats N`
//! (page through the recording for N frames and print frame times).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A pending screenshot.
pub struct ScreenshotRequest {
    pub path: PathBuf,
    settled_frames: u32,
    requested: bool,
    result: Arc<Mutex<Option<Result<(), String>>>>,
}

impl ScreenshotRequest {
    pub fn new(path: PathBuf) -> Self {
        Self { path, settled_frames: 0, requested: false, result: Arc::new(Mutex::new(None)) }
    }

    /// Called at the end of each frame with whether the UI has settled (file open, page drawn, jobs done).
    /// Returns `Some(result)` once the PNG is written (or failed): the app then closes.
    pub fn on_frame(&mut self, ctx: &egui::Context, settled: bool) -> Option<Result<(), String>> {
        if let Some(r) = self.result.lock().ok()?.take() {
            return Some(r);
        }
        if !settled {
            self.settled_frames = 0;
            ctx.request_repaint_after(Duration::from_millis(20));
            return None;
        }
        self.settled_frames += 1;
        // A few identical frames so layout (panel sizes, fonts) has converged before the capture.
        if self.settled_frames >= 3 && !self.requested {
            self.requested = true;
            let path = self.path.clone();
            let slot = self.result.clone();
            ctx.request_screenshot(move |image| {
                let r = save_png(&path, &image);
                if let Ok(mut s) = slot.lock() {
                    *s = Some(r);
                }
            });
        }
        ctx.request_repaint_after(Duration::from_millis(20));
        None
    }
}

fn save_png(path: &std::path::Path, image: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = image.size;
    let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    let img = image::RgbaImage::from_raw(w as u32, h as u32, bytes).ok_or("screenshot has the wrong size")?;
    img.save(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Frame-time measurement over N frames while paging.
pub struct FrameStats {
    pub frames: u32,
    pub ui_ms: Vec<f64>,
    pub cpu_ms: Vec<f64>,
}

impl FrameStats {
    pub fn new(frames: u32) -> Self {
        Self { frames, ui_ms: Vec::new(), cpu_ms: Vec::new() }
    }

    /// True once enough frames were measured.
    pub fn done(&self) -> bool {
        self.ui_ms.len() as u32 >= self.frames
    }

    /// "frames N: ui mean/p95/max ms; eframe cpu mean/p95/max ms".
    pub fn report(&self) -> String {
        fn stats(v: &[f64]) -> String {
            let mut s = v.to_vec();
            s.sort_by(f64::total_cmp);
            let mean = s.iter().sum::<f64>() / s.len().max(1) as f64;
            let p95 = s.get(((s.len() as f64 * 0.95) as usize).min(s.len().saturating_sub(1))).copied().unwrap_or(0.0);
            format!("mean {mean:.2} ms, p95 {p95:.2} ms, max {:.2} ms", s.last().copied().unwrap_or(0.0))
        }
        let hwm = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        format!(
            "frames {}: app ui {}; eframe frame cpu {}; peak resident memory {hwm}",
            self.ui_ms.len(),
            stats(&self.ui_ms),
            stats(&self.cpu_ms)
        )
    }
}

/// Saves the part of a window screenshot under `rect` (points) as a PNG (chart export).
pub fn save_png_region(
    path: &std::path::Path,
    image: &egui::ColorImage,
    rect: egui::Rect,
    pixels_per_point: f32,
) -> Result<(), String> {
    let bounds = egui::Rect::from_min_size(
        egui::Pos2::ZERO,
        egui::vec2(image.size[0] as f32, image.size[1] as f32) / pixels_per_point,
    );
    let rect = rect.intersect(bounds);
    if rect.width() < 1.0 || rect.height() < 1.0 {
        return Err("the chart is not on screen".into());
    }
    save_png(path, &image.region(&rect, Some(pixels_per_point)))
}

/// Saves the area `rect` of the next frame as a PNG; the outcome line lands in `slot` (chart export).
pub fn request_png(
    ctx: &egui::Context,
    rect: egui::Rect,
    path: std::path::PathBuf,
    slot: std::sync::Arc<std::sync::Mutex<Option<String>>>,
) {
    let ppp = ctx.pixels_per_point();
    ctx.request_screenshot(move |image| {
        let msg = match save_png_region(&path, &image, rect, ppp) {
            Ok(()) => format!("wrote {}", path.display()),
            Err(e) => format!("PNG export failed: {e}"),
        };
        if let Ok(mut s) = slot.lock() {
            *s = Some(msg);
        }
    });
    ctx.request_repaint();
}

#[cfg(test)]
mod tests {
    #[test]
    fn chart_region_is_cropped_at_the_pixel_scale() {
        // A 200 × 100 px window at 2 px per point; the chart covers points (10, 5)–(60, 45).
        let mut img = egui::ColorImage::filled([200, 100], egui::Color32::BLACK);
        for y in 10..90 {
            for x in 20..120 {
                img.pixels[y * 200 + x] = egui::Color32::WHITE;
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("chart.png");
        let rect = egui::Rect::from_min_max(egui::pos2(10.0, 5.0), egui::pos2(60.0, 45.0));
        super::save_png_region(&p, &img, rect, 2.0).unwrap();
        let png = image::open(&p).unwrap().to_rgba8();
        assert_eq!(png.dimensions(), (100, 80));
        assert!(png.pixels().all(|px| px.0 == [255, 255, 255, 255]));
        // Entirely off screen: a clear error, no file.
        let off = egui::Rect::from_min_max(egui::pos2(500.0, 500.0), egui::pos2(600.0, 600.0));
        assert!(super::save_png_region(&dir.path().join("x.png"), &img, off, 2.0).is_err());
    }
}
