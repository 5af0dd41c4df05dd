//! `--emit svg`: a picture of one function's plan. One panel per memory space: statement
//! time on x (labelled with the statements' source lines), address on y (0 at the bottom),
//! one rectangle per tile over its lifetime and bytes, filled with its buffer's colour, plus
//! the capacity line and the live-bytes curve. Pure and deterministic: the same report and
//! text give the same bytes.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use crate::ir::LineIndex;
use crate::plan::{LifetimeReport, PlanReport, SpaceReport, live_bytes_at};

const LEFT: f64 = 84.0;
const RIGHT: f64 = 24.0;
const PLOT_W: f64 = 1000.0;
const WIDTH: f64 = LEFT + PLOT_W + RIGHT;
const PLOT_H: f64 = 320.0;
const TOP: f64 = 16.0;
const TITLE_H: f64 = 42.0;
const AXIS_H: f64 = 40.0;
const GAP: f64 = 28.0;
/// Room above a broken address axis for the capacity line.
const BREAK_H: f64 = 40.0;
const LEGEND_ROW: f64 = 16.0;
const LEGEND_FONT: f64 = 10.0;
/// Label font sizes tried in turn; labels use a monospace font so their width is predictable.
const LABEL_FONTS: [f64; 2] = [11.0, 8.0];
/// Advance of one monospace character, as a fraction of the font size.
const CHAR_W: f64 = 0.62;

/// Renders `report` (the plan of `function_name` in the file whose text is `text`) as a
/// standalone SVG document.
pub fn plan_svg(function_name: &str, report: &PlanReport, text: &str) -> String {
    let index = LineIndex::new(text);
    let time = Time {
        lines: report
            .statement_spans
            .iter()
            .map(|span| index.line(span.start))
            .collect(),
    };
    let mut body = String::new();
    let mut y = TOP;
    for space in &report.spaces {
        y = panel(&mut body, function_name, space, &report.lifetimes, &time, y) + GAP;
    }
    if report.spaces.is_empty() {
        let _ = writeln!(
            body,
            r#"<text x="{LEFT}" y="{}" font-size="14">{}: no on-chip tiles to plan</text>"#,
            TOP + 14.0,
            escape(function_name)
        );
        y = TOP + 14.0 + GAP;
    }
    let height = y.ceil();
    let mut out = String::with_capacity(body.len() + 512);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(
        out,
        "<title>memreuse plan of {}</title>",
        escape(function_name)
    );
    let _ = writeln!(
        out,
        r##"<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>"##
    );
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

/// The x axis: statement numbers, shown as the source lines of the statements.
struct Time {
    /// The line of each statement, by number; empty when the report has no places.
    lines: Vec<u32>,
}

impl Time {
    /// How statement `t` is labelled: its line (the last statement's for the end of time).
    fn label(&self, t: u32) -> u32 {
        match self.lines.last() {
            Some(&last) => self.lines.get(t as usize).copied().unwrap_or(last),
            None => t,
        }
    }

    fn unit(&self) -> &'static str {
        if self.lines.is_empty() {
            "statement"
        } else {
            "source line"
        }
    }
}

/// One tile as drawn: bytes `[offset, offset + size)` over statements `[def, end)`.
pub struct Tile<'a> {
    pub name: &'a str,
    /// Its buffer's index in the space's `buffers`.
    pub buffer: usize,
    pub offset: i64,
    pub size: i64,
    pub def: u32,
    pub last: u32,
    /// `last`, or one past `def` for a never-used tile, which still needs its bytes at `def`.
    pub end: u32,
}

/// The tiles of one space, matched to their lifetimes by name (in report order, so a name
/// defined twice takes its rows in turn). A member without a lifetime row has no time to
/// draw at and is left out.
pub fn tiles<'a>(space: &'a SpaceReport, lifetimes: &'a [LifetimeReport]) -> Vec<Tile<'a>> {
    let mut rows: FxHashMap<&str, Vec<&LifetimeReport>> = FxHashMap::default();
    for row in lifetimes.iter().filter(|r| r.space == space.space).rev() {
        rows.entry(row.var.as_str()).or_default().push(row);
    }
    let mut out = Vec::new();
    for (buffer, b) in space.buffers.iter().enumerate() {
        for member in &b.members {
            let Some(row) = rows.get_mut(member.as_str()).and_then(Vec::pop) else {
                continue;
            };
            out.push(Tile {
                name: member.as_str(),
                buffer,
                offset: b.offset,
                size: row.size.max(0),
                def: row.def,
                last: row.last,
                end: row.last.max(row.def.saturating_add(1)),
            });
        }
    }
    out
}

/// Draws one space's panel with its top at `top`; returns where it ends.
fn panel(
    out: &mut String,
    function_name: &str,
    space: &SpaceReport,
    lifetimes: &[LifetimeReport],
    time: &Time,
    top: f64,
) -> f64 {
    let tiles = tiles(space, lifetimes);
    let t0 = tiles.iter().map(|t| t.def).min().unwrap_or(0);
    let t1 = tiles.iter().map(|t| t.end).max().unwrap_or(t0 + 1);
    let live = live_bytes_at(&space.live, t0, (t1 - t0) as usize);
    let peak = live.iter().copied().max().unwrap_or(0);
    let drawn = tiles
        .iter()
        .map(|t| t.offset.saturating_add(t.size))
        .chain(
            space
                .buffers
                .iter()
                .map(|b| b.offset.saturating_add(b.size)),
        )
        .chain([space.footprint, peak, 1])
        .max()
        .unwrap_or(1);
    // A capacity far above what is drawn would squash the tiles into a sliver: the axis is
    // broken instead, with the capacity line above the break.
    let known = space.capacity.filter(|&c| c > 0);
    let broken = known.is_some_and(|c| c > drawn.saturating_mul(2));
    let (linear_h, highest) = if broken {
        (PLOT_H - BREAK_H, drawn)
    } else {
        (PLOT_H, drawn.max(known.unwrap_or(0)))
    };
    let plot = Plot {
        t0,
        t1,
        top: top + TITLE_H,
        // Headroom so the highest line does not merge into the frame.
        y_top: highest as f64 * 1.06,
        linear_h,
    };

    let space_name = space.space.name();
    let _ = writeln!(out, r#"<g class="space" data-space="{space_name}">"#);
    let capacity = match known {
        Some(capacity) => format!("{capacity} B"),
        None => "unknown".to_string(),
    };
    let _ = writeln!(
        out,
        r#"<text class="panel-title" x="{LEFT}" y="{:.1}" font-size="15" font-weight="bold">{} · {space_name}</text>"#,
        top + 16.0,
        escape(function_name)
    );
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="{:.1}" font-size="12">footprint {} B · lower bound {} B · capacity {capacity} · {} tiles in {} buffers · x: {}, y: address (0 at the bottom)</text>"#,
        top + 33.0,
        space.footprint,
        space.lower_bound,
        tiles.len(),
        space.buffers.len(),
        time.unit()
    );
    axes(out, &plot, time);
    if broken {
        let band = plot.top + 26.0;
        let _ = writeln!(
            out,
            r##"<rect class="axis-break" x="{:.1}" y="{:.1}" width="{:.1}" height="8" fill="#ffffff" stroke="#999999" stroke-dasharray="3 3"/>"##,
            LEFT - 6.0,
            band - 4.0,
            PLOT_W + 12.0
        );
    }
    draw_tiles(out, &plot, &tiles, space, time);
    if let Some(capacity) = known {
        capacity_line(out, &plot, capacity, broken);
    }
    live_bytes_line(out, &plot, &live, peak);

    let bottom = legend(out, space, peak, plot.top + PLOT_H + AXIS_H);
    out.push_str("</g>\n");
    bottom
}

/// A panel's plot area: statements `[t0, t1]` across, bytes `[0, y_top]` up `linear_h` of
/// its height from the bottom (the rest is the broken axis's band), its top at `top`.
struct Plot {
    t0: u32,
    t1: u32,
    top: f64,
    y_top: f64,
    linear_h: f64,
}

impl Plot {
    fn x(&self, t: u32) -> f64 {
        LEFT + f64::from(t - self.t0) / f64::from(self.t1 - self.t0) * PLOT_W
    }

    fn y(&self, bytes: i64) -> f64 {
        self.top + PLOT_H - bytes as f64 / self.y_top * self.linear_h
    }
}

/// Each tile's rectangle, with its label where it fits.
fn draw_tiles(out: &mut String, plot: &Plot, tiles: &[Tile<'_>], space: &SpaceReport, time: &Time) {
    for t in tiles {
        let (x0, x1) = (plot.x(t.def), plot.x(t.end));
        let (y0, y1) = (plot.y(t.offset.saturating_add(t.size)), plot.y(t.offset));
        // Keep slivers visible; their tooltip still says what they are.
        let (w, h) = ((x1 - x0).max(0.6), (y1 - y0).max(0.6));
        let name = escape(t.name);
        let base = escape(&space.buffers[t.buffer].base);
        // An outline separates neighbours but would swallow a thin rectangle's fill.
        let outline = if w >= 4.0 && h >= 4.0 {
            r##" stroke="#ffffff" stroke-width="0.6""##
        } else {
            ""
        };
        let _ = writeln!(
            out,
            r##"<rect class="tile" data-tile="{name}" data-buffer="{base}" x="{x0:.2}" y="{y0:.2}" width="{w:.2}" height="{h:.2}" fill="{}" fill-opacity="0.85"{outline}><title>{name} in {base}: bytes [{}, {}), {}s {}..{}</title></rect>"##,
            colour(t.buffer),
            t.offset,
            t.offset.saturating_add(t.size),
            time.unit(),
            time.label(t.def),
            time.label(t.last)
        );
        // Drop labels that do not fit: a crowded panel shows colours and tooltips only.
        let chars = t.name.chars().count() as f64;
        if let Some(font) = LABEL_FONTS
            .iter()
            .copied()
            .find(|&f| chars * f * CHAR_W + 4.0 <= w && f + 2.0 <= h)
        {
            let _ = writeln!(
                out,
                r##"<text class="tile-label" x="{:.2}" y="{:.2}" font-size="{font}" font-family="DejaVu Sans Mono, monospace" text-anchor="middle" dominant-baseline="central" fill="#111111">{name}</text>"##,
                x0 + w / 2.0,
                y0 + h / 2.0
            );
        }
    }
}

/// The dashed line of a known capacity; above the break when the axis is broken.
fn capacity_line(out: &mut String, plot: &Plot, capacity: i64, broken: bool) {
    let cy = if broken {
        plot.top + 14.0
    } else {
        plot.y(capacity)
    };
    let _ = writeln!(
        out,
        r##"<line class="capacity" x1="{LEFT}" y1="{cy:.2}" x2="{:.2}" y2="{cy:.2}" stroke="#d62728" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
        LEFT + PLOT_W
    );
    let _ = writeln!(
        out,
        r##"<text x="{:.2}" y="{:.2}" font-size="10" text-anchor="end" fill="#d62728">capacity {} B{}</text>"##,
        LEFT + PLOT_W - 4.0,
        cy - 3.0,
        capacity,
        if broken {
            " (address axis broken below)"
        } else {
            ""
        }
    );
}

/// The live bytes over time, `live[i]` at statement `t0 + i`.
fn live_bytes_line(out: &mut String, plot: &Plot, live: &[i64], peak: i64) {
    let mut points = String::new();
    let mut previous = None;
    for (i, &bytes) in live.iter().enumerate() {
        let t = plot.t0 + i as u32;
        if let Some(p) = previous.filter(|&p| p != bytes) {
            let _ = write!(points, "{:.2},{:.2} ", plot.x(t), plot.y(p));
        }
        if previous != Some(bytes) {
            let _ = write!(points, "{:.2},{:.2} ", plot.x(t), plot.y(bytes));
        }
        previous = Some(bytes);
    }
    if let Some(p) = previous {
        let _ = write!(points, "{:.2},{:.2}", plot.x(plot.t1), plot.y(p));
    }
    let _ = writeln!(
        out,
        r##"<polyline class="live-bytes" points="{points}" fill="none" stroke="#000000" stroke-opacity="0.8" stroke-width="1.2"><title>live bytes (peak {peak} B)</title></polyline>"##
    );
}

/// The frame, ticks and tick labels.
fn axes(out: &mut String, plot: &Plot, time: &Time) {
    let (t0, t1, plot_top, y_top) = (plot.t0, plot.t1, plot.top, plot.y_top);
    let plot_bottom = plot_top + PLOT_H;
    let _ = writeln!(
        out,
        r##"<rect class="frame" x="{LEFT}" y="{plot_top:.1}" width="{PLOT_W}" height="{PLOT_H}" fill="#f7f7f7" stroke="#555555"/>"##
    );
    let step = nice_step(t1 - t0);
    let ticks = (t0.div_ceil(step)..=t1 / step).map(|k| k * step);
    for t in ticks {
        let tx = plot.x(t);
        let _ = writeln!(
            out,
            r##"<line x1="{tx:.2}" y1="{plot_bottom:.1}" x2="{tx:.2}" y2="{:.1}" stroke="#555555"/><text class="tick" x="{tx:.2}" y="{:.1}" font-size="10" text-anchor="middle">{}</text>"##,
            plot_bottom + 4.0,
            plot_bottom + 15.0,
            time.label(t)
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="middle">{}</text>"#,
        LEFT + PLOT_W / 2.0,
        plot_bottom + 30.0,
        time.unit()
    );
    // Power-of-two byte steps keep the labels round in KiB.
    let mut bytes_step: i64 = 1;
    while (bytes_step as f64) * 8.0 < y_top {
        bytes_step *= 2;
    }
    let mut b: i64 = 0;
    while (b as f64) <= y_top {
        let by = plot.y(b);
        let _ = writeln!(
            out,
            r##"<line x1="{:.1}" y1="{by:.2}" x2="{LEFT}" y2="{by:.2}" stroke="#555555"/><text x="{:.1}" y="{:.2}" font-size="10" text-anchor="end" dominant-baseline="central">{}</text>"##,
            LEFT - 4.0,
            LEFT - 6.0,
            by,
            human_bytes(b)
        );
        let Some(next) = b.checked_add(bytes_step) else {
            break;
        };
        b = next;
    }
    let _ = writeln!(
        out,
        r#"<text x="14" y="{:.1}" font-size="11" text-anchor="middle" transform="rotate(-90 14 {:.1})">address (bytes)</text>"#,
        plot_top + PLOT_H / 2.0,
        plot_top + PLOT_H / 2.0
    );
}

/// A 1-2-5 step giving at most about a dozen ticks over `span` statements.
fn nice_step(span: u32) -> u32 {
    let mut magnitude = 1u32;
    loop {
        for m in [1u32, 2, 5] {
            let step = m.saturating_mul(magnitude);
            if span / step <= 12 {
                return step;
            }
        }
        magnitude = magnitude.saturating_mul(10);
    }
}

fn human_bytes(b: i64) -> String {
    if b >= 1024 && b % 1024 == 0 {
        format!("{} KiB", b / 1024)
    } else {
        b.to_string()
    }
}

/// Legend rows under the axis: the two lines, then one swatch per buffer, in columns.
fn legend(out: &mut String, space: &SpaceReport, peak: i64, top: f64) -> f64 {
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1}" y2="{0:.1}" stroke="#000000" stroke-width="1.5"/><text x="{2}" y="{0:.1}" font-size="{LEGEND_FONT}" dominant-baseline="central">live bytes (peak {peak} B)</text>"##,
        top + 6.0,
        LEFT + 22.0,
        LEFT + 28.0
    );
    if space.capacity.is_some_and(|c| c > 0) {
        let _ = writeln!(
            out,
            r##"<line x1="{0}" y1="{1:.1}" x2="{2}" y2="{1:.1}" stroke="#d62728" stroke-width="1.5" stroke-dasharray="6 4"/><text x="{3}" y="{1:.1}" font-size="{LEGEND_FONT}" dominant-baseline="central">capacity</text>"##,
            LEFT + 220.0,
            top + 6.0,
            LEFT + 242.0,
            LEFT + 248.0
        );
    }
    let entries: Vec<String> = space
        .buffers
        .iter()
        .map(|b| {
            let pinned = if b.pinned { ", pinned" } else { "" };
            format!("{} ({} B @ {}{pinned})", b.base, b.size, b.offset)
        })
        .collect();
    let longest = entries.iter().map(|e| e.chars().count()).max().unwrap_or(0);
    let column = longest as f64 * LEGEND_FONT * CHAR_W + 24.0;
    let columns = ((PLOT_W / column).floor() as usize).max(1);
    let rows_top = top + LEGEND_ROW + 4.0;
    for (i, (b, entry)) in space.buffers.iter().zip(&entries).enumerate() {
        let ex = LEFT + (i % columns) as f64 * column;
        let ey = rows_top + (i / columns) as f64 * LEGEND_ROW;
        let _ = writeln!(
            out,
            r##"<g class="legend-entry" data-buffer="{}"><rect x="{ex:.1}" y="{:.1}" width="12" height="10" fill="{}"/><text x="{:.1}" y="{:.1}" font-size="{LEGEND_FONT}" font-family="DejaVu Sans Mono, monospace" dominant-baseline="central">{}</text></g>"##,
            escape(&b.base),
            ey + 1.0,
            colour(i),
            ex + 16.0,
            ey + 6.0,
            escape(entry)
        );
    }
    rows_top + space.buffers.len().div_ceil(columns) as f64 * LEGEND_ROW
}

/// Buffer `i`'s colour: hues a golden angle apart, so neighbours differ however many there
/// are, and lightness cycling so that buffers of near hues still differ.
pub fn colour(i: usize) -> String {
    let hue = (i as f64 * 137.507_764) % 360.0;
    let (s, l) = (0.62, [0.62, 0.74, 0.52][i % 3]);
    let c = (1.0 - (2.0 * l - 1.0f64).abs()) * s;
    let h = hue / 60.0;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round() as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(escape(r#"a<b>&"c'"#), "a&lt;b&gt;&amp;&quot;c&apos;");
    }

    #[test]
    fn colours_are_distinct_hex() {
        let colours: Vec<String> = (0..8).map(colour).collect();
        for (i, c) in colours.iter().enumerate() {
            assert!(c.len() == 7 && c.starts_with('#'), "{c}");
            assert!(!colours[..i].contains(c), "{c} repeats");
        }
    }

    #[test]
    fn nice_steps_bound_the_tick_count() {
        for span in [1, 7, 13, 99, 2400, u32::MAX] {
            assert!(span / nice_step(span) <= 12, "{span}");
        }
    }
}
