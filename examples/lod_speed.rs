//! How long one timeline frame's level-of-detail and raster work takes natively, for a run of
//! ~1M slices on 64 CPUs (compare with tests/bench/timeline.mjs in the browser):
//!   cargo run --release --example lod_speed
use fairground_app::draw::lod::Store;
use fairground_app::wire::proto::WireSlice;
use fairground_app::draw::raster::{draw_lane, LaneGeom};
use std::time::Instant;

fn main() {
    let cpus = 64usize;
    let mut st = Store::new(cpus);
    // 2 s of 1.9 µs..150 µs stints, as the 640-periodic-task bench run gives (~1M slices).
    let mut x: u64 = 88172645463325252;
    let mut t = vec![0u64; cpus];
    let mut n = 0;
    while n < 1_000_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let cpu = (x % cpus as u64) as usize;
        let start = t[cpu] + (x >> 40) % 50_000;
        let end = start + 2_000 + (x >> 20) % 150_000;
        t[cpu] = end;
        st.push(&WireSlice { cpu: cpu as u32, task: (x >> 8) as u32 % 640, start_ns: start, end_ns: end, why: 0, other: u32::MAX });
        n += 1;
    }
    let dur = *t.iter().max().unwrap() as f64;
    let (w, lane_h) = (1486usize, 6usize);
    let mut cols = Vec::new();
    let mut img = vec![0u8; w * lane_h * cpus * 4];
    for (label, span) in [("whole run", dur), ("zoomed 16x", dur / 16.0)] {
        let frames = 50;
        let (mut t_lod, mut t_raster) = (0.0, 0.0);
        for f in 0..frames {
            let t0 = (f as f64) * span / 200.0;
            for lane in 0..cpus {
                let a = Instant::now();
                st.columns(lane, t0, span / w as f64, w, None, &mut cols);
                let b = Instant::now();
                draw_lane(&mut img, w, 0, &LaneGeom { y: lane * lane_h, h: lane_h }, &cols, None, usize::MAX);
                t_lod += (b - a).as_secs_f64();
                t_raster += b.elapsed().as_secs_f64();
            }
        }
        std::hint::black_box(&img);
        println!("{label}: {n} slices, per frame: lod {:.2} ms, raster {:.2} ms", t_lod * 1e3 / frames as f64, t_raster * 1e3 / frames as f64);
    }
}
