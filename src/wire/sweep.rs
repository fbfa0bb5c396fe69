//! The records of a sweep point and how the page reads them: the figures a chart can draw,
//! the values a sweep starts with, a point's value as a label, series and the CSV. Pure.

use serde::{Deserialize, Serialize};

/// Most points one sweep in the app may have (each is a whole run).
pub const MAX_SWEEP_POINTS: usize = 200;

/// One entity's figures at one point, named and in the order of the A/B tables.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Entity {
    pub name: String,
    pub figures: Vec<(String, Option<f64>)>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SweepFigures {
    /// The value as it was set (JSON text).
    pub value: String,
    /// The second parameter's value, in a two-way sweep (JSON text).
    pub by: Option<String>,
    pub entities: Vec<Entity>,
}

/// One figure a two-way sweep's chart draws, one line per value of the second parameter.
pub const FIGURES: [(&str, &str); 11] = [
    ("p50_us", "wakeup latency p50 (µs)"),
    ("p75_us", "wakeup latency p75 (µs)"),
    ("p90_us", "wakeup latency p90 (µs)"),
    ("p95_us", "wakeup latency p95 (µs)"),
    ("p99_us", "wakeup latency p99 (µs)"),
    ("p99.9_us", "wakeup latency p99.9 (µs)"),
    ("max_us", "wakeup latency max (µs)"),
    ("wakeups", "wakeups"),
    ("wakeup_preemptions", "wakeup preemptions"),
    ("cpu_ms", "CPU time (ms)"),
    ("completion_ms", "completion (ms)"),
];

/// In a two-way sweep whose points are stored row by row (`n` values per value of the second
/// parameter), one line per row: `figure` of `entity` against the first parameter.
pub fn by_series(points: &[Option<SweepFigures>], n: usize, by_labels: &[String], entity: &str, figure: &str) -> Vec<(String, Vec<Option<f64>>)> {
    by_labels
        .iter()
        .zip(points.chunks(n.max(1)))
        .map(|(label, row)| (label.clone(), series(row, entity, &[figure]).pop().map(|s| s.1).unwrap_or_default()))
        .collect()
}

/// What a sweep's chart can draw against the value: (label, figures).
pub const FIGURE_SETS: [(&str, &[&str]); 5] = [
    ("wakeup latency p50 / p90 / p95 / p99 (µs)", &["p50_us", "p90_us", "p95_us", "p99_us"]),
    ("wakeup latency p99.9 and max (µs)", &["p99.9_us", "max_us"]),
    ("CPU time (ms)", &["cpu_ms"]),
    ("wakeups and wakeup preemptions", &["wakeups", "wakeup_preemptions"]),
    ("completion (ms)", &["completion_ms"]),
];

/// The values a sweep of `path` starts with, in the threads' order where they have one
/// (latency nice 19 → −20, as the seed tables read left to right).
pub fn default_values(path: &str) -> &'static str {
    let last = path.rsplit('.').next().unwrap_or(path);
    match last {
        "latency_nice" => "19..-20",
        "nice" => "-10..10:2",
        "cpus" => "1..8",
        // Every policy on one workload, as the four-policies scenario compares the first four.
        "policy" => "cfs-v6.2,latency-nice-v12,eevdf-v6.6,eevdf-v6.12,eevdf-v6.18",
        "base_slice_ns" | "min_granularity_ns" => "250000..3000000:250000",
        "latency_ns" => "2000000..24000000:2000000",
        "wakeup_granularity_ns" => "0..4000000:500000",
        "sched_nr_latency" => "2..16:2",
        "groups" => "1..8",
        "workers" => "1..8",
        _ => "",
    }
}

/// A value as a chart labels it: JSON text, a string without its quotes.
pub fn value_label(json: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::String(s)) => s,
        _ => json.to_string(),
    }
}

/// One line per figure of `entity` across the points (None where a point is not done, lacks
/// the entity, or has no such figure: no samples).
pub fn series(points: &[Option<SweepFigures>], entity: &str, figures: &[&str]) -> Vec<(String, Vec<Option<f64>>)> {
    figures
        .iter()
        .map(|f| {
            let ys = points
                .iter()
                .map(|p| p.as_ref()?.entities.iter().find(|e| e.name == entity)?.figures.iter().find(|x| x.0 == *f)?.1)
                .collect();
            (f.to_string(), ys)
        })
        .collect()
}

/// Every figure of every entity at every point done, one per line: `param,value,name,figure,x`,
/// preceded by `by_param,by_value` in a two-way sweep (`by` = the second parameter's path).
pub fn sweep_csv(path: &str, by: Option<&str>, points: &[Option<SweepFigures>]) -> String {
    let field = |s: &str| if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() };
    let mut out = String::from(if by.is_some() { "by_param,by_value," } else { "" });
    out.push_str("param,value,name,figure,x\n");
    for p in points.iter().flatten() {
        let head = match by {
            Some(b) => format!("{},{},", field(b), field(&p.by.as_deref().map(value_label).unwrap_or_default())),
            None => String::new(),
        };
        for e in &p.entities {
            for (f, x) in &e.figures {
                let x = x.map_or_else(String::new, |v| v.to_string());
                out.push_str(&format!("{head}{},{},{},{},{x}\n", field(path), field(&value_label(&p.value)), field(&e.name), f));
            }
        }
    }
    out
}

/// The sweep as the threads post theirs ("Copy as LKML text"): a heading naming the swept
/// parameter (and the second one), then for `entity` one fixed-width row per point with its
/// wakeups and latency percentiles in µs ("-" where a point is not done or has no sample).
pub fn sweep_text(scenario: &str, path: &str, by: Option<&str>, points: &[Option<SweepFigures>], values: &[String], entity: &str) -> String {
    use std::fmt::Write;
    const COLS: [(&str, &str); 6] = [("wakeups", "wakeups"), ("p50_us", "p50 µs"), ("p90_us", "p90"), ("p95_us", "p95"), ("p99_us", "p99"), ("max_us", "max")];
    let short = |p: &str| p.rsplit('.').next().unwrap_or(p).to_string();
    let mut out = format!("{scenario}: {entity}, {path} swept");
    if let Some(b) = by {
        let _ = write!(out, " for each {b}");
    }
    out.push('\n');
    // (second value, value, cells) per point.
    let rows: Vec<(String, String, Vec<String>)> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let value = p.as_ref().map_or_else(|| values.get(i % values.len().max(1)).cloned().unwrap_or_default(), |p| p.value.clone());
            let b = p.as_ref().and_then(|p| p.by.as_deref()).map(value_label).unwrap_or_else(|| "-".into());
            let cells = COLS
                .iter()
                .map(|(f, _)| {
                    let x = p.as_ref().and_then(|p| p.entities.iter().find(|e| e.name == entity)).and_then(|e| e.figures.iter().find(|x| x.0 == *f)).and_then(|x| x.1);
                    x.map_or_else(|| "-".to_string(), |v| if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.1}") })
                })
                .collect();
            (b, value_label(&value), cells)
        })
        .collect();
    let (bh, vh) = (by.map(short).unwrap_or_default(), short(path));
    let bw = rows.iter().map(|r| r.0.chars().count()).chain([bh.chars().count()]).max().unwrap_or(0) + 2;
    let vw = rows.iter().map(|r| r.1.chars().count()).chain([vh.chars().count()]).max().unwrap_or(0) + 2;
    if by.is_some() {
        let _ = write!(out, "{bh:<bw$}");
    }
    let _ = write!(out, "{vh:<vw$}");
    for (_, h) in COLS {
        let _ = write!(out, "{h:>10}");
    }
    out.push('\n');
    for (b, v, cells) in rows {
        if by.is_some() {
            let _ = write!(out, "{b:<bw$}");
        }
        let _ = write!(out, "{v:<vw$}");
        for c in cells {
            let _ = write!(out, "{c:>10}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod text_tests {
    use super::*;

    fn point(value: &str, by: Option<&str>, p50: f64, wakeups: f64) -> Option<SweepFigures> {
        let figures = vec![("wakeups".to_string(), Some(wakeups)), ("p50_us".to_string(), Some(p50)), ("p99_us".to_string(), None)];
        Some(SweepFigures { value: value.into(), by: by.map(str::to_string), entities: vec![Entity { name: "cyclictest".into(), figures }] })
    }

    /// The columns line up (every row as wide as the heading row), the values are the points'
    /// own, and a missing figure or point is "-".
    #[test]
    fn the_lkml_text_is_fixed_width_with_the_points_numbers() {
        let pts = vec![point("19", None, 24.7, 945.0), point("-20", None, 20.2, 999.0), None];
        let t = sweep_text("seed 004", "tasks[0].latency_nice", None, &pts, &["19".into(), "-20".into(), "0".into()], "cyclictest");
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "seed 004: cyclictest, tasks[0].latency_nice swept");
        assert!(lines[1].starts_with("latency_nice  "), "{}", lines[1]);
        let width = lines[1].chars().count();
        assert!(lines[2..].iter().all(|l| l.chars().count() == width), "{t}");
        assert!(lines[2].starts_with("19 ") && lines[2].contains("945") && lines[2].contains("24.7"), "{}", lines[2]);
        assert!(lines[3].contains("20.2") && lines[3].contains("999"), "{}", lines[3]);
        assert!(lines[4].starts_with("0 ") && lines[4].trim_end().ends_with('-'), "{}", lines[4]);
    }
}
