//! Which rows of a long table are in the DOM: those near the viewport, in whole chunks, with
//! the rows between them stood in for by spacers of the same height. With all 160 rows of
//! hackbench-8cpu (three number inputs each), the frame after a jump to the end spent about
//! 44 ms in layout, pre-paint and paint on the development machine (one trace each); with the
//! rows near the viewport, 6 ms. Pure, so it is unit-tested natively.

/// Tables of at most this many rows are drawn whole (every lesson and most scenarios).
pub const WHOLE_UP_TO: usize = 64;
/// Rows are taken in and left out in chunks of this many, so that a scroll re-renders the
/// table only when it crosses a chunk.
pub const CHUNK: usize = 16;
/// Rows kept beyond each edge of the viewport.
pub const OVERSCAN: f64 = 16.0;

/// The rows `[first, last)` of an `n`-row table to put in the DOM, for a table body whose
/// top is `body_top` CSS px from the top of a viewport `view_h` px high, with rows `row_h` px
/// high. Every row when `n <= WHOLE_UP_TO`; otherwise at least one chunk, even when the table
/// is out of view (the nearest rows).
pub fn window(n: usize, body_top: f64, view_h: f64, row_h: f64) -> (usize, usize) {
    if n <= WHOLE_UP_TO {
        return (0, n);
    }
    let row_h = if row_h.is_finite() && row_h >= 1.0 { row_h } else { 1.0 };
    let rows = |px: f64| if px.is_finite() { (px / row_h).clamp(0.0, n as f64) as usize } else { 0 };
    let from = rows(-body_top - OVERSCAN * row_h);
    let to = rows(view_h - body_top + OVERSCAN * row_h + row_h - 1.0);
    let mut first = from / CHUNK * CHUNK;
    let mut last = to.div_ceil(CHUNK) * CHUNK;
    if last < first + CHUNK {
        last = first + CHUNK;
    }
    last = last.min(n);
    if last - first < CHUNK {
        first = last.saturating_sub(CHUNK);
    }
    (first, last)
}

/// What a windowed table body holds, in order: runs of rows to draw, and the counts of rows
/// left out between them (`Gap`). `keep` (the selected row) is drawn wherever it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Rows(usize, usize),
    Gap(usize),
}

pub fn parts(n: usize, (first, last): (usize, usize), keep: Option<usize>) -> Vec<Part> {
    let (first, last) = (first.min(n), last.min(n).max(first.min(n)));
    let mut runs = vec![(first, last)];
    if let Some(k) = keep.filter(|&k| k < n && !(first..last).contains(&k)) {
        if k < first {
            runs.insert(0, (k, k + 1));
        } else {
            runs.push((k, k + 1));
        }
    }
    let mut out = Vec::with_capacity(5);
    let mut at = 0;
    for (a, b) in runs {
        if a > at {
            out.push(Part::Gap(a - at));
        }
        if b > a {
            out.push(Part::Rows(a, b));
        }
        at = at.max(b);
    }
    if n > at {
        out.push(Part::Gap(n - at));
    }
    out
}

/// The rows whose name contains `query`, ignoring the case of ASCII letters and the spaces
/// around the query; every row for a blank query. A windowed table offers this in place of the
/// browser's find, which sees only the rows drawn. (Unicode case folding would add its tables
/// to the page's wasm for names that are ASCII in every shipped scenario.)
pub fn matching<'a>(names: impl Iterator<Item = &'a str>, query: &str) -> Vec<usize> {
    let q = query.trim().to_ascii_lowercase();
    names.enumerate().filter(|(_, name)| q.is_empty() || name.to_ascii_lowercase().contains(&q)).map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_tables_are_whole() {
        assert_eq!(window(64, -5000.0, 700.0, 30.0), (0, 64));
        assert_eq!(window(0, 0.0, 700.0, 30.0), (0, 0));
    }

    /// 160 rows of 30 px, the body's top at 100 px in a 768 px viewport: rows 0..23 are in
    /// view (668 px), 16 more below is 39, rounded up to the chunk 48.
    #[test]
    fn the_rows_in_view_and_a_margin_in_whole_chunks() {
        assert_eq!(window(160, 100.0, 768.0, 30.0), (0, 48));
        // Scrolled so that the body's top is 3000 px above the viewport: rows 100..126 are in
        // view; 16 rows of margin each way is 84..142, in chunks 80..144.
        assert_eq!(window(160, -3000.0, 768.0, 30.0), (80, 144));
        // At the end: the last rows, up to the table's end.
        assert_eq!(window(160, -4500.0, 768.0, 30.0), (128, 160));
    }

    #[test]
    fn out_of_view_keeps_the_nearest_chunk() {
        // Far below the viewport: the first chunk.
        assert_eq!(window(160, 5000.0, 768.0, 30.0), (0, 16));
        // Far above it: the last chunk.
        assert_eq!(window(160, -90000.0, 768.0, 30.0), (144, 160));
        // Nonsense sizes do not panic and still give a chunk.
        assert_eq!(window(160, f64::NAN, f64::INFINITY, 0.0), (0, 16));
    }

    #[test]
    fn matching_finds_names_by_a_part_of_them() {
        let names = ["hb/sender0", "hb/sender1", "hb/receiver10", "Hog", "hb/receiver1"];
        let m = |q| matching(names.iter().copied(), q);
        assert_eq!(m(""), vec![0, 1, 2, 3, 4]);
        assert_eq!(m("  "), vec![0, 1, 2, 3, 4]);
        assert_eq!(m("receiver1"), vec![2, 4]);
        assert_eq!(m(" RECEIVER1 "), vec![2, 4]);
        assert_eq!(m("hog"), vec![3]);
        assert_eq!(m("sender2"), Vec::<usize>::new());
    }

    #[test]
    fn parts_cover_every_row_once() {
        for keep in [None, Some(0), Some(5), Some(40), Some(100), Some(159), Some(400)] {
            let p = parts(160, (32, 80), keep);
            let mut covered = 0;
            let mut drawn = Vec::new();
            for part in &p {
                match *part {
                    Part::Rows(a, b) => {
                        assert_eq!(a, covered, "{p:?}");
                        drawn.extend(a..b);
                        covered = b;
                    }
                    Part::Gap(g) => covered += g,
                }
            }
            assert_eq!(covered, 160, "{p:?}");
            let mut want: Vec<usize> = (32..80).collect();
            if let Some(k) = keep.filter(|&k| k < 160 && !(32..80).contains(&k)) {
                want.push(k);
                want.sort();
            }
            assert_eq!(drawn, want, "{p:?}");
        }
        assert_eq!(parts(160, (0, 48), Some(100)), vec![Part::Rows(0, 48), Part::Gap(52), Part::Rows(100, 101), Part::Gap(59)]);
        assert_eq!(parts(10, (0, 10), None), vec![Part::Rows(0, 10)]);
    }
}
