//! EEVDF (v6.6 / v6.12) against the hand-computable vectors of kernel-source.md part E, run
//! through the model's own functions: slices and first deadlines, the HZ-dependent lag
//! limit, lag inflation at placement, custom-slice clamping, and new deadlines.

use fairground_sim::cfs::flags::*;
use fairground_sim::cfs::Fair;
use fairground_sim::eevdf::{self, avg, Version};
use fairground_sim::entity::Entity;
use fairground_sim::scenario::{Features, Policy, Tunables};
use fairground_sim::tunables::Config;
use fairground_sim::weights::LoadWeight;

fn fair(policy: Policy, cpus: u32, hz: u32) -> Fair {
    Fair::new(Config::new(policy, cpus, hz, &Tunables::default(), &Features::default()), 16)
}

fn add(f: &mut Fair, nice: i32) -> u32 {
    let id = f.ents.len() as u32;
    let mut e = Entity::new(LoadWeight::for_nice(nice), f.root_rq(0));
    e.slice = f.cfg.base_slice_ns;
    f.ents.push(e);
    id
}

const BOTH: [Policy; 2] = [Policy::EevdfV66, Policy::EevdfV612];

#[test]
fn first_deadline_is_one_vslice_and_half_with_enqueue_initial() {
    // Part E: vslice at 1 and 8 CPUs (base slice 0.75 ms × factor 1 or 4).
    let cases: &[(u32, &[(i32, u64)])] = &[
        (1, &[(-20, 8652), (-5, 246074), (0, 750000), (5, 2292537), (19, 51199999)]),
        (8, &[(-20, 34609), (-5, 984299), (0, 3000000), (5, 9170149), (19, 204799999)]),
    ];
    for policy in BOTH {
        for &(cpus, rows) in cases {
            for &(nice, vslice) in rows {
                let mut f = fair(policy, cpus, 1000);
                let se = add(&mut f, nice);
                f.enqueue_task_fair(se, ENQUEUE_WAKEUP);
                let e = &f.ents[se as usize];
                assert_eq!(e.deadline.wrapping_sub(e.vruntime), vslice, "{policy:?} {cpus} cpus nice {nice}");
                let mut f = fair(policy, cpus, 1000);
                let se = add(&mut f, nice);
                f.enqueue_task_fair(se, ENQUEUE_INITIAL);
                let e = &f.ents[se as usize];
                assert_eq!(e.deadline.wrapping_sub(e.vruntime), vslice / 2, "{policy:?} {cpus} cpus nice {nice} initial");
            }
        }
    }
}

#[test]
fn forked_task_first_deadline_differs_between_v66_and_v612() {
    // v6.6.0 loses the half slice (task_fork_fair places with ENQUEUE_INITIAL, but
    // wake_up_new_task enqueues without it and places again); v6.12 keeps it.
    for (policy, expect) in [(Policy::EevdfV66, 750_000), (Policy::EevdfV612, 375_000)] {
        let mut f = fair(policy, 1, 1000);
        let se = add(&mut f, 0);
        f.task_fork_fair(se);
        let flags = eevdf::task_ops::wake_up_new_task_flags(&f);
        f.enqueue_task_fair(se, flags);
        let e = &f.ents[se as usize];
        assert_eq!(e.vruntime, f.cfs_rqs[0].min_vruntime, "{policy:?}: an empty rq's V is min_vruntime");
        assert_eq!(e.deadline.wrapping_sub(e.vruntime), expect, "{policy:?}");
    }
}

#[test]
fn lag_limit_depends_on_hz() {
    // limit = calc_delta_fair(max(2·slice, TICK_NSEC)) for slice 0.75 ms.
    let rows = [(100, 10_000_000, 30_567_164), (250, 4_000_000, 12_226_865), (300, 3_333_333, 10_189_053), (1000, 1_500_000, 4_585_074)];
    for policy in BOTH {
        for (hz, nice0, nice5) in rows {
            let mut f = fair(policy, 1, hz);
            for (nice, limit) in [(0, nice0), (5, nice5)] {
                let se = add(&mut f, nice);
                let v = f.ents[se as usize].vruntime;
                assert_eq!(avg::entity_lag(&mut f, v.wrapping_add(1 << 40), se), limit, "HZ {hz} nice {nice}");
                assert_eq!(avg::entity_lag(&mut f, v.wrapping_sub(1 << 40), se), -limit, "HZ {hz} nice {nice}");
                assert_eq!(avg::entity_lag(&mut f, v.wrapping_add(12345), se), 12345, "inside the limit");
            }
        }
    }
}

/// A runqueue holding `others` nice-0 entities, the first of them running (curr), then a
/// task of `nice` waking with saved lag `vlag`. Returns (V before the wakeup, its vruntime).
fn wake_with_lag(policy: Policy, others: usize, nice: i32, vlag: i64) -> (u64, u64) {
    let mut f = fair(policy, 1, 1000);
    let ids: Vec<u32> = (0..others).map(|_| add(&mut f, 0)).collect();
    for &id in &ids {
        f.enqueue_task_fair(id, ENQUEUE_WAKEUP);
    }
    let curr = f.pick_next_task_fair(0, fairground_sim::entity::NIL);
    assert_eq!(curr, ids[0]);
    let v = avg::avg_vruntime(&f, 0);
    let se = add(&mut f, nice);
    f.ents[se as usize].vlag = vlag;
    f.enqueue_task_fair(se, ENQUEUE_WAKEUP);
    (v, f.ents[se as usize].vruntime)
}

#[test]
fn placement_inflates_lag_by_w_plus_wi_over_w() {
    // Part E: (W, w_i, vlag) → lag used. All the others sit at V, so V does not move.
    let rows: [(usize, i32, i64, i64); 4] =
        [(1, 0, 1_000_000, 2_000_000), (2, 0, 1_000_000, 1_500_000), (1, 5, -600_000, -796_289), (3, 0, -300_000, -400_000)];
    for policy in BOTH {
        for (others, nice, vlag, used) in rows {
            let (v, vruntime) = wake_with_lag(policy, others, nice, vlag);
            assert_eq!(v.wrapping_sub(vruntime) as i64, used, "{policy:?} W={} w_i nice {nice} vlag {vlag}", others * 1024);
        }
    }
}

#[test]
fn placement_without_place_lag_is_at_v() {
    let feat = Features { place_lag: Some(false), ..Features::default() };
    let mut f = Fair::new(Config::new(Policy::EevdfV612, 1, 1000, &Tunables::default(), &feat), 4);
    let a = add(&mut f, 0);
    f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
    f.pick_next_task_fair(0, fairground_sim::entity::NIL);
    let v = avg::avg_vruntime(&f, 0);
    let b = add(&mut f, 0);
    f.ents[b as usize].vlag = 1_000_000;
    f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
    assert_eq!(f.ents[b as usize].vruntime, v);
}

#[test]
fn custom_slice_clamp() {
    for (runtime, slice) in [(1, 100_000), (50_000, 100_000), (100_000, 100_000), (3_000_000, 3_000_000), (200_000_000, 100_000_000)] {
        assert_eq!(eevdf::clamp_custom_slice(runtime), slice);
    }
}

#[test]
fn custom_slice_from_a_scenario_is_clamped_and_only_in_v612() {
    let text = |policy: &str| {
        format!(
            r#"{{"format":"fairground-scenario/1","name":"s","duration_ms":1,"scheduler":{{"policy":"{policy}"}},
            "tasks":[{{"name":"a","slice_us":50,"behavior":{{"kind":"hog"}}}},
                     {{"name":"b","slice_us":200000,"behavior":{{"kind":"hog"}}}},
                     {{"name":"c","slice_us":3000,"behavior":{{"kind":"hog"}}}},
                     {{"name":"d","behavior":{{"kind":"hog"}}}}]}}"#
        )
    };
    let sim = |policy: &str| {
        let v = fairground_sim::parse_scenario(&text(policy)).expect("valid");
        fairground_sim::engine::Sim::new(&v).expect("simulated")
    };
    let s = sim("eevdf-v6.12");
    let slices: Vec<(u64, bool)> = (0..4).map(|i| (s.fair.ents[i].slice, s.fair.ents[i].custom_slice)).collect();
    assert_eq!(slices, vec![(100_000, true), (100_000_000, true), (3_000_000, true), (750_000, false)]);
    let s = sim("eevdf-v6.6");
    assert!(s.fair.ents.iter().all(|e| e.slice == 750_000 && !e.custom_slice));
    assert!(s.warnings.iter().any(|w| w.contains("slice_us")), "{:?}", s.warnings);
}

#[test]
fn used_up_request_gets_a_new_deadline_one_vslice_later_and_reschedules() {
    for policy in BOTH {
        let mut f = fair(policy, 1, 1000);
        let a = add(&mut f, 5);
        let b = add(&mut f, 0);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
        // b was placed at V (with a queued) with deadline V + 750 000; a at its own V.
        let first = f.pick_next_task_fair(0, fairground_sim::entity::NIL);
        let d0 = f.ents[first as usize].deadline;
        let v0 = f.ents[first as usize].vruntime;
        // Run it for exactly its request: the vruntime reaches the deadline.
        let vslice = d0.wrapping_sub(v0);
        let runtime = if first == a { 750_000 } else { vslice };
        f.now += runtime;
        assert!(!f.need_resched(0));
        f.task_tick_fair(first);
        let e = &f.ents[first as usize];
        assert_eq!(e.vruntime, d0, "{policy:?}: ran exactly one request");
        assert_eq!(e.deadline, d0.wrapping_add(vslice), "{policy:?}: vd = ve + r/w");
        assert!(f.need_resched(0), "{policy:?}: a used-up request reschedules when others wait");
    }
}

#[test]
fn version_of_policy() {
    assert_eq!(Version::of(Policy::EevdfV66), Some(Version::V66));
    assert_eq!(Version::of(Policy::EevdfV612), Some(Version::V612));
    assert_eq!(Version::of(Policy::CfsV62), None);
}

#[test]
fn feature_defaults_follow_each_version() {
    use fairground_sim::tunables::Feat;
    let f66 = Feat::defaults(Policy::EevdfV66);
    let f612 = Feat::defaults(Policy::EevdfV612);
    // features.h of v6.6.0: PLACE_LAG, PLACE_DEADLINE_INITIAL, RUN_TO_PARITY on; the rest of
    // v6.12's EEVDF features do not exist yet.
    assert!(f66.place_lag && f66.place_deadline_initial && f66.run_to_parity && f66.wakeup_preemption);
    assert!(!f66.place_rel_deadline && !f66.preempt_short && !f66.delay_dequeue && !f66.delay_zero && !f66.next_buddy);
    // features.h of v6.12.0: all of them on, NEXT_BUDDY off.
    assert!(f612.place_lag && f612.place_deadline_initial && f612.place_rel_deadline && f612.run_to_parity);
    assert!(f612.preempt_short && f612.delay_dequeue && f612.delay_zero && f612.wakeup_preemption && !f612.next_buddy);
}

#[test]
fn base_slice_scales_with_cpus_and_honours_none() {
    for (cpus, slice) in [(1, 750_000), (2, 1_500_000), (4, 2_250_000), (8, 3_000_000), (64, 3_000_000)] {
        assert_eq!(fair(Policy::EevdfV612, cpus, 250).cfg.base_slice_ns, slice, "{cpus} cpus");
    }
    let t = Tunables { tunable_scaling: Some(fairground_sim::scenario::Scaling::None), ..Tunables::default() };
    assert_eq!(Config::new(Policy::EevdfV66, 8, 250, &t, &Features::default()).base_slice_ns, 750_000);
}
