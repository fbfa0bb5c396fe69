//! The runqueue view the app draws (issue 8): the real trees, curr beside them, the keys as
//! each policy uses them, and the operation log for animation.

use fairground_sim::engine::Sim;
use fairground_sim::entity::NIL;
use fairground_sim::parse_scenario;
use fairground_sim::rbtree::RbOp;
use fairground_sim::view::rq_view;

fn sim(policy: &str, extra: &str) -> Sim {
    let text = format!(
        r#"{{ "format": "fairground-scenario/1", "name": "v", "duration_ms": 50, "machine": {{ "hz": 1000 }}, "scheduler": {{ "policy": "{policy}" }},
            "tasks": [ {{ "name": "h", "count": 5, "behavior": {{ "kind": "hog" }} }},
                       {{ "name": "l", "latency_nice": -20, "behavior": {{ "kind": "periodic", "period_us": 3000, "run_us": 200 }} }} {extra} ] }}"#
    );
    Sim::new(&parse_scenario(&text).expect("valid")).expect("sim")
}

#[test]
fn cfs_view_has_curr_outside_and_keys_in_order() {
    let mut s = sim("latency-nice-v12", "");
    s.run_until(20_000_000);
    let v = rq_view(&s.fair, 0);
    let curr = v.curr.expect("a task runs");
    assert!(v.tasks_timeline.nodes.iter().all(|n| n.0 != curr.entity), "curr is not in the tree");
    assert_eq!(v.tasks_nodes.len() as u32 + 1, v.nr_running);
    assert!(v.tasks_nodes.windows(2).all(|w| w[0].vruntime_rel <= w[1].vruntime_rel), "in-order by vruntime");
    assert_eq!(v.tasks_timeline.leftmost, v.tasks_nodes[0].entity);
    // An entity in the latency tree is the same entity, keyed by vruntime + offset.
    for &(id, ..) in &v.latency_timeline.nodes {
        let n = v.tasks_nodes.iter().chain(v.curr.iter()).find(|n| n.entity == id).expect("also a task node");
        assert!(n.in_latency_tree && n.latency_key_rel == n.vruntime_rel - 3_000_000);
    }
}

#[test]
fn eevdf_views_key_by_version() {
    for (policy, by_deadline) in [("eevdf-v6.6", false), ("eevdf-v6.12", true)] {
        let mut s = sim(policy, "");
        s.run_until(20_000_000);
        let v = rq_view(&s.fair, 0);
        assert!(v.avg_vruntime.is_some());
        let keys: Vec<i64> = v.tasks_nodes.iter().map(|n| if by_deadline { n.deadline_rel } else { n.vruntime_rel }).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{policy}: {keys:?}");
        // Eligibility is lag ≥ 0.
        assert!(v.tasks_nodes.iter().all(|n| n.eligible == (n.lag >= 0) || n.lag == -1), "{policy}");
        assert!(v.tasks_nodes.iter().all(|n| n.task != NIL && n.weight == 1024 || n.task == 5));
    }
}

#[test]
fn tree_operations_are_logged_for_animation() {
    let mut s = sim("cfs-v6.2", "");
    s.fair.log_tree_ops(0);
    s.run_until(10_000_000);
    let (ops, latency_ops) = s.fair.take_tree_ops(0);
    assert!(ops.iter().any(|o| matches!(o, RbOp::Insert { .. })) && ops.iter().any(|o| matches!(o, RbOp::Erase { .. })));
    assert!(latency_ops.is_empty(), "no latency tree under cfs-v6.2");
    assert!(s.fair.take_tree_ops(0).0.is_empty(), "taken");
}
