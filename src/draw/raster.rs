//! Colours and pixels of the timeline: columns (from `lod`) become RGBA rows of a canvas
//! image, with no canvas call per slice.
//!
//! The palette is Okabe & Ito's colour-blind-safe set, followed by Paul Tol's "muted" colours
//! for more tasks; after those, colours repeat one shade darker, then lighter (hover and the
//! selection tell repeated colours apart). Idle is a pale grey with a diagonal hatch, so that
//! "nothing ran" never reads as a task.

use crate::draw::lod::Col;
use crate::wire::proto::NONE;

pub const PALETTE: [[u8; 3]; 14] = [
    [0x00, 0x72, 0xB2], // blue
    [0xE6, 0x9F, 0x00], // orange
    [0x00, 0x9E, 0x73], // bluish green
    [0xCC, 0x79, 0xA7], // reddish purple
    [0x56, 0xB4, 0xE9], // sky blue
    [0xD5, 0x5E, 0x00], // vermillion
    [0xF0, 0xE4, 0x42], // yellow
    [0x33, 0x22, 0x88], // indigo (Tol)
    [0x99, 0x99, 0x33], // olive
    [0x88, 0x22, 0x55], // wine
    [0x44, 0xAA, 0x99], // teal
    [0xDD, 0xCC, 0x77], // sand
    [0xCC, 0x66, 0x77], // rose
    [0x11, 0x77, 0x33], // green
];

pub const IDLE_BG: [u8; 3] = [0xF1, 0xF2, 0xF4];
pub const IDLE_HATCH: [u8; 3] = [0xD9, 0xDC, 0xE1];

/// The colour of task `t`.
pub fn task_rgb(t: u32) -> [u8; 3] {
    let n = PALETTE.len() as u32;
    let base = PALETTE[(t % n) as usize];
    match (t / n) % 3 {
        0 => base,
        1 => base.map(|c| (c as u32 * 7 / 10) as u8),
        _ => base.map(|c| (c as u32 + (255 - c as u32) * 4 / 10) as u8),
    }
}

pub fn css(rgb: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2])
}

/// Blend towards white by `k`/256 (for what is not selected, and for the computed future).
fn fade(c: [u8; 3], k: u32) -> [u8; 3] {
    c.map(|v| (v as u32 + (255 - v as u32) * k / 256) as u8)
}

/// The stretches of a lane where one task ran alone, whole columns: (first column, width,
/// task), appended to `out`. Where one is wide enough, the timeline writes the task's name in it.
pub fn solo_runs(cols: &[super::lod::Col], lane: usize, out: &mut Vec<(usize, usize, usize, u32)>) {
    let mut start = 0;
    while start < cols.len() {
        let c = cols[start];
        let solo = |x: &super::lod::Col| x.task == c.task && !x.mixed && x.busy == 255;
        if c.task == crate::wire::proto::NONE || !solo(&c) {
            start += 1;
            continue;
        }
        let len = cols[start..].iter().take_while(|x| solo(x)).count();
        out.push((lane, start, len, c.task));
        start += len;
    }
}

/// Where a lane lies in the image and how to draw it.
pub struct LaneGeom {
    pub y: usize,
    pub h: usize,
}

/// Draw one lane's columns into `img` (RGBA, `width` pixels wide) starting at pixel column
/// `x0`. A busy column is filled from the bottom to its busy fraction; a column that mixes
/// tasks gets a darker top pixel. Busy columns from `future_from` on are faded (already
/// computed, but after the current time); with a selected task, other tasks are faded too.
pub fn draw_lane(img: &mut [u8], width: usize, x0: usize, g: &LaneGeom, cols: &[Col], selected: Option<u32>, future_from: usize) {
    let n = cols.len().min(width.saturating_sub(x0));
    let pack = |c: [u8; 3]| u32::from_le_bytes([c[0], c[1], c[2], 255]);
    // Per column: first busy row, and the colours of its busy part and of its top edge.
    let spans: Vec<(usize, u32, u32)> = cols[..n]
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if c.task == NONE {
                return (g.h, 0, 0);
            }
            let busy_h = ((c.busy as usize * g.h + 127) / 255).clamp(1, g.h);
            let mut rgb = task_rgb(c.task);
            if selected.is_some_and(|s| s != c.task) {
                rgb = fade(rgb, 170);
            }
            if i >= future_from {
                rgb = fade(rgb, 190);
            }
            let edge = if c.mixed && busy_h > 2 { rgb.map(|v| v / 2) } else { rgb };
            (g.h - busy_h, pack(rgb), pack(edge))
        })
        .collect();
    let (bg, hatch) = (pack(IDLE_BG), pack(IDLE_HATCH));
    // Row by row, so the writes are sequential.
    for dy in 0..g.h {
        let y = g.y + dy;
        let row = (y * width + x0) * 4;
        let Some(out) = img.get_mut(row..row + n * 4) else { return };
        let mut phase = (x0 + y) % 6;
        for (px, &(top, fg, edge)) in out.chunks_exact_mut(4).zip(&spans) {
            let v = if dy > top {
                fg
            } else if dy == top {
                edge
            } else if phase == 0 {
                hatch
            } else {
                bg
            };
            px.copy_from_slice(&v.to_le_bytes());
            phase = if phase == 5 { 0 } else { phase + 1 };
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn solo_runs_are_whole_stretches_of_one_task() {
        use crate::draw::lod::{Col, IDLE};
        let a = Col { task: 1, busy: 255, mixed: false };
        let b = Col { task: 2, busy: 255, mixed: false };
        let part = Col { task: 1, busy: 100, mixed: false };
        let mix = Col { task: 2, busy: 255, mixed: true };
        let cols = [a, a, a, part, a, IDLE, b, b, mix, b];
        let mut out = Vec::new();
        solo_runs(&cols, 3, &mut out);
        assert_eq!(out, vec![(3, 0, 3, 1), (3, 4, 1, 1), (3, 6, 2, 2), (3, 9, 1, 2)]);
    }

    use super::*;

    #[test]
    fn palette_colours_are_distinct_and_repeats_are_shaded() {
        for i in 0..PALETTE.len() {
            for j in 0..i {
                assert_ne!(PALETTE[i], PALETTE[j]);
            }
        }
        let n = PALETTE.len() as u32;
        assert_ne!(task_rgb(0), task_rgb(n));
        assert_ne!(task_rgb(n), task_rgb(2 * n));
        assert_eq!(task_rgb(0), task_rgb(3 * n));
        // No task colour is the idle grey.
        for t in 0..3 * n {
            assert_ne!(task_rgb(t), IDLE_BG);
        }
    }

    #[test]
    fn a_half_busy_column_fills_half_the_lane_from_the_bottom() {
        let (w, h) = (2usize, 10usize);
        let mut img = vec![0u8; w * h * 4];
        let cols = [Col { task: 0, busy: 128, mixed: false }, crate::draw::lod::IDLE];
        draw_lane(&mut img, w, 0, &LaneGeom { y: 0, h }, &cols, None, usize::MAX);
        let px = |x: usize, y: usize| [img[(y * w + x) * 4], img[(y * w + x) * 4 + 1], img[(y * w + x) * 4 + 2]];
        assert_eq!(px(0, 9), task_rgb(0));
        assert_eq!(px(0, 5), task_rgb(0));
        assert_ne!(px(0, 4), task_rgb(0));
        for y in 0..h {
            assert!(px(1, y) == IDLE_BG || px(1, y) == IDLE_HATCH);
        }
    }
}
