//! Property tests of the kernel-faithful red-black tree.
//!
//! Entities embed two nodes, like a sched_entity with run_node and latency_node: the "run"
//! tree is augmented (subtree min of `val` and subtree size), the "lat" tree is plain. Keys are
//! drawn from a tiny range so that ties — which the kernel breaks by shape — are the norm.

use fairground_sim::rbtree::*;
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Ent {
    key: u8,
    key2: u8,
    val: i64,
    min_val: i64,
    count: u32,
    run: RbNode,
    lat: RbNode,
}

/// The bool turns on the subtree-count augment. It is off in half the runs because a count
/// changes on every structural edit and so would hide bugs in propagate's early exit.
struct RunView<'a>(&'a mut Vec<Ent>, bool);
struct LatView<'a>(&'a mut Vec<Ent>);

impl RbAccess for RunView<'_> {
    fn node(&self, id: u32) -> &RbNode {
        &self.0[id as usize].run
    }
    fn node_mut(&mut self, id: u32) -> &mut RbNode {
        &mut self.0[id as usize].run
    }
}

impl RbAugment for RunView<'_> {
    fn augment_recompute(&mut self, id: u32) -> bool {
        let n = self.0[id as usize].run;
        let mut min_val = self.0[id as usize].val;
        let mut count = 1;
        for c in [n.left, n.right] {
            if c != NIL {
                let e = &self.0[c as usize];
                min_val = min_val.min(e.min_val);
                count += e.count;
            }
        }
        if !self.1 {
            count = 0;
        }
        let e = &mut self.0[id as usize];
        let changed = (e.min_val, e.count) != (min_val, count);
        e.min_val = min_val;
        e.count = count;
        changed
    }
    fn augment_copy(&mut self, old: u32, new: u32) {
        let (m, c) = (self.0[old as usize].min_val, self.0[old as usize].count);
        let e = &mut self.0[new as usize];
        e.min_val = m;
        e.count = c;
    }
}

impl RbAccess for LatView<'_> {
    fn node(&self, id: u32) -> &RbNode {
        &self.0[id as usize].lat
    }
    fn node_mut(&mut self, id: u32) -> &mut RbNode {
        &mut self.0[id as usize].lat
    }
}

fn run_less(v: &RunView, a: u32, b: u32) -> bool {
    v.0[a as usize].key < v.0[b as usize].key
}

fn lat_less(v: &LatView, a: u32, b: u32) -> bool {
    v.0[a as usize].key2 < v.0[b as usize].key2
}

/// Rebuilds a tree from the op log alone: structure from Insert/Erase/Rotate*, colours only
/// from Insert (red) and Recolor. Matching the real tree proves the log is complete.
#[derive(Default)]
struct Replay {
    nodes: Vec<RbNode>,
    root: u32,
    pending_replace: Option<(u32, u32)>,
}

impl Replay {
    fn new() -> Self {
        Replay {
            nodes: Vec::new(),
            root: NIL,
            pending_replace: None,
        }
    }

    fn n(&mut self, id: u32) -> &mut RbNode {
        let i = id as usize;
        if self.nodes.len() <= i {
            self.nodes.resize(i + 1, RbNode::default());
        }
        &mut self.nodes[i]
    }

    /// Point `old`'s parent (or the root) at `new`, and `new` back at that parent.
    fn transplant(&mut self, old: u32, new: u32) {
        let p = self.n(old).parent;
        if p == NIL {
            self.root = new;
        } else if self.n(p).left == old {
            self.n(p).left = new;
        } else {
            self.n(p).right = new;
        }
        if new != NIL {
            self.n(new).parent = p;
        }
    }

    fn rotate_left(&mut self, x: u32) {
        let y = self.n(x).right;
        let b = self.n(y).left;
        self.n(x).right = b;
        if b != NIL {
            self.n(b).parent = x;
        }
        self.transplant(x, y);
        self.n(y).left = x;
        self.n(x).parent = y;
    }

    fn rotate_right(&mut self, x: u32) {
        let y = self.n(x).left;
        let b = self.n(y).right;
        self.n(x).left = b;
        if b != NIL {
            self.n(b).parent = x;
        }
        self.transplant(x, y);
        self.n(y).right = x;
        self.n(x).parent = y;
    }

    fn erase(&mut self, z: u32) {
        let (l, r) = (self.n(z).left, self.n(z).right);
        if l == NIL {
            self.transplant(z, r);
        } else if r == NIL {
            self.transplant(z, l);
        } else {
            let mut s = r;
            while self.n(s).left != NIL {
                s = self.n(s).left;
            }
            if s != r {
                let sr = self.n(s).right;
                self.transplant(s, sr);
                self.n(s).right = r;
                self.n(r).parent = s;
            }
            self.n(s).left = l;
            self.n(l).parent = s;
            self.transplant(z, s);
            self.pending_replace = Some((z, s));
        }
    }

    fn apply(&mut self, op: RbOp) {
        match op {
            RbOp::Insert { id, parent, left } => {
                *self.n(id) = RbNode {
                    parent,
                    left: NIL,
                    right: NIL,
                    color: Color::Red,
                };
                if parent == NIL {
                    self.root = id;
                } else if left {
                    self.n(parent).left = id;
                } else {
                    self.n(parent).right = id;
                }
            }
            RbOp::Erase { id } => self.erase(id),
            RbOp::Replace { old, new } => {
                assert_eq!(
                    self.pending_replace.take(),
                    Some((old, new)),
                    "Replace does not match the successor"
                );
            }
            RbOp::RotateLeft { id } => self.rotate_left(id),
            RbOp::RotateRight { id } => self.rotate_right(id),
            RbOp::Recolor { id, color } => self.n(id).color = color,
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// New entity with (run key, lat key, augmented value).
    Insert(u8, u8, i64),
    /// Erase the i-th (mod len) queued entity from both trees.
    Erase(usize),
    /// Re-queue the i-th (mod len) dequeued entity with new keys (stale links must not matter).
    Requeue(usize, u8, u8),
    /// Change a queued entity's value in place and propagate, as the kernel does on reweight.
    Update(usize, i64),
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..6, 0u8..4, 0i64..20).prop_map(|(k, k2, v)| Op::Insert(k, k2, v)),
        3 => any::<usize>().prop_map(Op::Erase),
        2 => (any::<usize>(), 0u8..6, 0u8..4).prop_map(|(i, k, k2)| Op::Requeue(i, k, k2)),
        1 => (any::<usize>(), 0i64..20).prop_map(|(i, v)| Op::Update(i, v)),
    ]
}

/// Recomputes (min_val, count) of the subtree at `id` from scratch and compares with storage.
fn brute_augment(ents: &[Ent], id: u32, count_aug: bool) -> Result<(i64, u32), String> {
    if id == NIL {
        return Ok((i64::MAX, 0));
    }
    let e = &ents[id as usize];
    let (lm, lc) = brute_augment(ents, e.run.left, count_aug)?;
    let (rm, rc) = brute_augment(ents, e.run.right, count_aug)?;
    let want = (
        e.val.min(lm).min(rm),
        if count_aug { 1 + lc + rc } else { 0 },
    );
    if (e.min_val, e.count) != want {
        return Err(format!(
            "augment of {id}: stored {:?}, brute force {:?}",
            (e.min_val, e.count),
            want
        ));
    }
    Ok(want)
}

struct World {
    count_aug: bool,
    ents: Vec<Ent>,
    run: RbRootCached,
    lat: RbRootCached,
    /// Expected in-order sequences: ties keep arrival order.
    run_model: Vec<u32>,
    lat_model: Vec<u32>,
    queued: Vec<u32>,
    idle: Vec<u32>,
    replay: Replay,
    /// Insert/Erase entries the run log must contain, in order.
    expected_events: Vec<RbOp>,
    seen_events: Vec<RbOp>,
}

impl World {
    fn new(count_aug: bool) -> Self {
        World {
            count_aug,
            ents: Vec::new(),
            run: RbRootCached::with_log(),
            lat: RbRootCached::new(),
            run_model: Vec::new(),
            lat_model: Vec::new(),
            queued: Vec::new(),
            idle: Vec::new(),
            replay: Replay::new(),
            expected_events: Vec::new(),
            seen_events: Vec::new(),
        }
    }

    fn enqueue(&mut self, id: u32) {
        let (k, k2) = (self.ents[id as usize].key, self.ents[id as usize].key2);
        let pos = self
            .run_model
            .partition_point(|&x| self.ents[x as usize].key <= k);
        self.run_model.insert(pos, id);
        let pos2 = self
            .lat_model
            .partition_point(|&x| self.ents[x as usize].key2 <= k2);
        self.lat_model.insert(pos2, id);

        // As __enqueue_entity does: seed the node's own augment before linking.
        let e = &mut self.ents[id as usize];
        e.min_val = e.val;
        e.count = u32::from(self.count_aug);
        let left = rb_add_augmented_cached(
            &mut self.run,
            id,
            &mut RunView(&mut self.ents, self.count_aug),
            run_less,
        );
        assert_eq!(left, pos == 0, "rb_add_augmented_cached leftmost report");
        let left2 = rb_add_cached(&mut self.lat, id, &mut LatView(&mut self.ents), lat_less);
        assert_eq!(left2, pos2 == 0, "rb_add_cached leftmost report");
        self.queued.push(id);
        // Only the id is compared: where it was linked is checked by the replay instead.
        self.expected_events.push(RbOp::Insert {
            id,
            parent: 0,
            left: false,
        });
    }

    fn dequeue(&mut self, id: u32) {
        let was_first = self.run_model.first() == Some(&id);
        self.run_model.retain(|&x| x != id);
        let was_first2 = self.lat_model.first() == Some(&id);
        self.lat_model.retain(|&x| x != id);
        let nl = rb_erase_augmented_cached(
            &mut self.run,
            id,
            &mut RunView(&mut self.ents, self.count_aug),
        );
        let want = if was_first {
            self.run_model.first().copied().unwrap_or(NIL)
        } else {
            NIL
        };
        assert_eq!(nl, want, "rb_erase_augmented_cached return");
        let nl2 = rb_erase_cached(&mut self.lat, id, &mut LatView(&mut self.ents));
        let want2 = if was_first2 {
            self.lat_model.first().copied().unwrap_or(NIL)
        } else {
            NIL
        };
        assert_eq!(nl2, want2, "rb_erase_cached return");
        rb_clear_node(&mut RunView(&mut self.ents, self.count_aug), id);
        rb_clear_node(&mut LatView(&mut self.ents), id);
        self.queued.retain(|&x| x != id);
        self.idle.push(id);
        self.expected_events.push(RbOp::Erase { id });
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Insert(key, key2, val) => {
                let id = self.ents.len() as u32;
                self.ents.push(Ent {
                    key,
                    key2,
                    val,
                    min_val: 0,
                    count: 0,
                    run: RbNode::default(),
                    lat: RbNode::default(),
                });
                self.enqueue(id);
            }
            Op::Erase(i) => {
                if !self.queued.is_empty() {
                    let id = self.queued[i % self.queued.len()];
                    self.dequeue(id);
                }
            }
            Op::Requeue(i, key, key2) => {
                if !self.idle.is_empty() {
                    let id = self.idle.remove(i % self.idle.len());
                    self.ents[id as usize].key = key;
                    self.ents[id as usize].key2 = key2;
                    self.enqueue(id);
                }
            }
            Op::Update(i, val) => {
                if !self.queued.is_empty() {
                    let id = self.queued[i % self.queued.len()];
                    self.ents[id as usize].val = val;
                    RunView(&mut self.ents, self.count_aug).augment_propagate(id, NIL);
                }
            }
        }
    }

    fn check(&mut self) -> Result<(), String> {
        check_invariants(
            &self.run,
            &RunView(&mut self.ents, self.count_aug),
            run_less,
        )?;
        check_invariants(&self.lat, &LatView(&mut self.ents), lat_less)?;

        let s = shape(&self.run, &RunView(&mut self.ents, self.count_aug));
        let order: Vec<u32> = s.nodes.iter().map(|n| n.0).collect();
        if order != self.run_model {
            return Err(format!("run order {order:?} != model {:?}", self.run_model));
        }
        let s2 = shape(&self.lat, &LatView(&mut self.ents));
        let order2: Vec<u32> = s2.nodes.iter().map(|n| n.0).collect();
        if order2 != self.lat_model {
            return Err(format!(
                "lat order {order2:?} != model {:?}",
                self.lat_model
            ));
        }
        if s.leftmost != self.run_model.first().copied().unwrap_or(NIL) {
            return Err("run leftmost is not the minimum".into());
        }
        brute_augment(&self.ents, self.run.root, self.count_aug)?;

        // Replay the new log entries and compare every live node.
        for op in self.run.take_log() {
            if matches!(op, RbOp::Insert { .. } | RbOp::Erase { .. }) {
                self.seen_events.push(match op {
                    RbOp::Insert { id, .. } => RbOp::Insert {
                        id,
                        parent: 0,
                        left: false,
                    },
                    other => other,
                });
            }
            self.replay.apply(op);
        }
        if self.replay.root != self.run.root {
            return Err(format!(
                "replayed root {} != {}",
                self.replay.root, self.run.root
            ));
        }
        for &id in &self.run_model {
            let real = self.ents[id as usize].run;
            let rep = *self.replay.n(id);
            if real != rep {
                return Err(format!("replayed node {id}: {rep:?} != real {real:?}"));
            }
        }
        if self.seen_events != self.expected_events {
            return Err("log Insert/Erase entries do not match the operations".into());
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn random_insert_erase_sequences(
        ops in prop::collection::vec(op_strategy(), 1..160),
        count_aug in any::<bool>(),
    ) {
        let mut w = World::new(count_aug);
        for (step, op) in ops.iter().enumerate() {
            w.apply(op);
            if let Err(e) = w.check() {
                return Err(TestCaseError::fail(format!("after step {step} ({op:?}): {e}")));
            }
        }
    }
}

#[test]
fn sequential_inserts_rotate_and_replay() {
    let mut w = World::new(true);
    for k in 0..64u8 {
        w.apply(&Op::Insert(k, 0, i64::from(k)));
        w.check().expect("check");
    }
    assert_eq!(w.run_model.len(), 64);
    // Fresh tree with its own log, to look at the rotations themselves.
    let mut ents: Vec<Ent> = (0..64u8)
        .map(|k| Ent {
            key: k,
            key2: 0,
            val: 0,
            min_val: 0,
            count: 1,
            run: RbNode::default(),
            lat: RbNode::default(),
        })
        .collect();
    let mut t = RbRootCached::with_log();
    for id in 0..64 {
        rb_add_augmented_cached(&mut t, id, &mut RunView(&mut ents, true), run_less);
    }
    let log = t.take_log();
    let rots = log
        .iter()
        .filter(|o| matches!(o, RbOp::RotateLeft { .. } | RbOp::RotateRight { .. }))
        .count();
    assert!(rots > 0);
    assert!(
        log.iter().all(|o| !matches!(o, RbOp::RotateRight { .. })),
        "ascending inserts only rotate left"
    );
    // 64 nodes: black height between log2(65)/2 and log2(65).
    let bh = check_invariants(&t, &RunView(&mut ents, true), run_less).expect("invariants");
    assert!((3..=6).contains(&bh));
}

#[test]
fn erase_everything_in_random_order_leaves_empty_tree() {
    let mut w = World::new(false);
    for i in 0..200u32 {
        w.apply(&Op::Insert(
            (i * 7 % 5) as u8,
            (i % 3) as u8,
            i64::from(i * 37 % 101),
        ));
    }
    w.check().expect("check");
    let mut i = 0usize;
    while !w.queued.is_empty() {
        i = i.wrapping_mul(31).wrapping_add(17);
        w.apply(&Op::Erase(i));
        w.check().expect("check");
    }
    assert!(w.run.is_empty() && w.lat.is_empty());
    assert_eq!(rb_first_cached(&w.run), NIL);
}
