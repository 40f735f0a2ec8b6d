//! A small Markdown renderer for agent reports: headings, bullet and numbered lists, fenced code blocks,
//! inline **bold**, _italic_ and `code`. Anything else is shown as plain text.

use egui::text::LayoutJob;
use egui::{Color32, FontId, TextFormat};

/// Appends `text` with inline emphasis and code to `job`.
fn inline(job: &mut LayoutJob, text: &str, size: f32, (color, strong): (Color32, Color32), base_bold: bool) {
    let (mut bold, mut italic, mut code) = (base_bold, false, false);
    let mut buf = String::new();
    let flush = |job: &mut LayoutJob, buf: &mut String, bold: bool, italic: bool, code: bool| {
        if buf.is_empty() {
            return;
        }
        let font = if code { FontId::monospace(size * 0.95) } else { FontId::proportional(size) };
        let mut fmt = TextFormat {
            font_id: font,
            color: if bold { strong } else { color },
            italics: italic,
            ..Default::default()
        };
        if code {
            fmt.background = Color32::from_gray(128).gamma_multiply(0.25);
        }
        job.append(buf, 0.0, fmt);
        buf.clear();
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' => {
                flush(job, &mut buf, bold, italic, code);
                code = !code;
            }
            '*' if !code && chars.peek() == Some(&'*') => {
                chars.next();
                flush(job, &mut buf, bold, italic, code);
                bold = !bold;
            }
            '_' | '*' if !code && (italic || buf.is_empty() || buf.ends_with(' ')) => {
                flush(job, &mut buf, bold, italic, code);
                italic = !italic;
            }
            _ => buf.push(c),
        }
    }
    flush(job, &mut buf, bold, italic, code);
}

/// Renders `md` into `ui`.
pub fn show(ui: &mut egui::Ui, md: &str) {
    let colors = (ui.visuals().text_color(), ui.visuals().strong_text_color());
    let color = colors.0;
    let body = 14.0;
    let mut in_code = false;
    let mut code = String::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            if in_code {
                ui.add(egui::Label::new(egui::RichText::new(code.trim_end()).monospace()).wrap());
                code.clear();
            }
            in_code = !in_code;
            continue;
        }
        if in_code {
            code.push_str(line);
            code.push('\n');
            continue;
        }
        let trimmed = line.trim_start();
        let mut job = LayoutJob::default();
        job.wrap.max_width = ui.available_width();
        if let Some(level) = (1..=4).rev().find(|n| trimmed.starts_with(&format!("{} ", "#".repeat(*n)))) {
            inline(&mut job, &trimmed[level + 1..], body + 2.0 * (4 - level) as f32, colors, true);
        } else if let Some(rest) = trimmed.strip_prefix("- ").or_else(|| trimmed.strip_prefix("* ")) {
            job.append("  • ", 0.0, TextFormat { font_id: FontId::proportional(body), color, ..Default::default() });
            inline(&mut job, rest, body, colors, false);
        } else if trimmed.is_empty() {
            ui.add_space(4.0);
            continue;
        } else {
            inline(&mut job, trimmed, body, colors, false);
        }
        ui.label(job);
    }
    if in_code && !code.is_empty() {
        ui.add(egui::Label::new(egui::RichText::new(code.trim_end()).monospace()).wrap());
    }
}
