//! Hand-checked shapes. Every expected tree and log below was derived by stepping through the
//! kernel's __rb_insert / __rb_erase_augmented / ____rb_erase_color by hand, not by printing
//! this implementation's output.

use super::*;
use Color::{Black as B, Red as R};

struct Arena {
    keys: Vec<i64>,
    nodes: Vec<RbNode>,
}

impl RbAccess for Arena {
    fn node(&self, id: u32) -> &RbNode {
        &self.nodes[id as usize]
    }
    fn node_mut(&mut self, id: u32) -> &mut RbNode {
        &mut self.nodes[id as usize]
    }
}

fn less(a: &Arena, x: u32, y: u32) -> bool {
    a.keys[x as usize] < a.keys[y as usize]
}

/// Arena where id `i` has key `i` (id 0 unused), tree built by inserting `seq` in order.
fn build(seq: &[u32]) -> (Arena, RbRootCached) {
    let n = seq.iter().copied().max().unwrap_or(0) as usize + 1;
    let mut a = Arena {
        keys: (0..n as i64).collect(),
        nodes: vec![RbNode::default(); n],
    };
    let mut t = RbRootCached::with_log();
    for &id in seq {
        rb_add_cached(&mut t, id, &mut a, less);
        check_invariants(&t, &a, less).expect("invariants");
    }
    (a, t)
}

const N: u32 = NIL;

#[test]
fn ascending_123_rotates_left_once() {
    let (a, t) = build(&[1, 2, 3]);
    let s = shape(&t, &a);
    assert_eq!((s.root, s.leftmost), (2, 1));
    assert_eq!(s.nodes, vec![(1, R, N, N), (2, B, 1, 3), (3, R, N, N)]);
    assert_eq!(
        t.log.as_deref(),
        Some(
            &[
                RbOp::Insert {
                    id: 1,
                    parent: N,
                    left: false
                },
                RbOp::Recolor { id: 1, color: B },
                RbOp::Insert {
                    id: 2,
                    parent: 1,
                    left: false
                },
                RbOp::Insert {
                    id: 3,
                    parent: 2,
                    left: false
                },
                RbOp::RotateLeft { id: 1 },
                RbOp::Recolor { id: 2, color: B },
                RbOp::Recolor { id: 1, color: R },
            ][..]
        )
    );
}

#[test]
fn descending_321_rotates_right_once() {
    let (a, mut t) = build(&[3, 2, 1]);
    let s = shape(&t, &a);
    assert_eq!((s.root, s.leftmost), (2, 1));
    assert_eq!(s.nodes, vec![(1, R, N, N), (2, B, 1, 3), (3, R, N, N)]);
    let log = t.take_log();
    assert_eq!(
        &log[2..4],
        &[
            RbOp::Insert {
                id: 2,
                parent: 3,
                left: true
            },
            RbOp::Insert {
                id: 1,
                parent: 2,
                left: true
            }
        ]
    );
    assert_eq!(
        &log[4..],
        &[
            RbOp::RotateRight { id: 3 },
            RbOp::Recolor { id: 2, color: B },
            RbOp::Recolor { id: 3, color: R }
        ]
    );
}

#[test]
fn zigzag_132_double_rotation() {
    // Insert case 2 (right rotate at parent 3) falls through into case 3 (left rotate at 1).
    let (a, mut t) = build(&[1, 3, 2]);
    let s = shape(&t, &a);
    assert_eq!(s.root, 2);
    assert_eq!(s.nodes, vec![(1, R, N, N), (2, B, 1, 3), (3, R, N, N)]);
    let log = t.take_log();
    assert_eq!(
        &log[4..],
        &[
            RbOp::RotateRight { id: 3 },
            RbOp::RotateLeft { id: 1 },
            RbOp::Recolor { id: 2, color: B },
            RbOp::Recolor { id: 1, color: R },
        ]
    );
}

/// 1..=6 ascending: 4 triggers a colour flip up to the root, 5 a left rotation at 3,
/// 6 a colour flip stopping under the black root.
fn one_to_six() -> (Arena, RbRootCached) {
    let (a, mut t) = build(&[1, 2, 3, 4, 5, 6]);
    let s = shape(&t, &a);
    assert_eq!((s.root, s.leftmost), (2, 1));
    assert_eq!(
        s.nodes,
        vec![
            (1, B, N, N),
            (2, B, 1, 4),
            (3, B, N, N),
            (4, R, 3, 5),
            (5, B, N, 6),
            (6, R, N, N)
        ]
    );
    t.take_log();
    (a, t)
}

#[test]
fn ascending_one_to_six() {
    one_to_six();
}

#[test]
fn erase_root_uses_successor_then_case4() {
    // Successor of 2 is 3 (leftmost under 4): erase case 3, then erase-colour case 4 at 4.
    let (mut a, mut t) = one_to_six();
    assert_eq!(rb_erase_cached(&mut t, 2, &mut a), NIL);
    check_invariants(&t, &a, less).expect("invariants");
    let s = shape(&t, &a);
    assert_eq!((s.root, s.leftmost), (3, 1));
    assert_eq!(
        s.nodes,
        vec![
            (1, B, N, N),
            (3, B, 1, 5),
            (4, B, N, N),
            (5, R, 4, 6),
            (6, B, N, N)
        ]
    );
    assert_eq!(
        t.take_log(),
        vec![
            RbOp::Erase { id: 2 },
            RbOp::Replace { old: 2, new: 3 },
            RbOp::RotateLeft { id: 4 },
            RbOp::Recolor { id: 6, color: B },
            RbOp::Recolor { id: 5, color: R },
            RbOp::Recolor { id: 4, color: B },
        ]
    );
}

#[test]
fn erase_leftmost_black_leaf_case1_then_case2() {
    // Red sibling 4: left rotate at 2 (case 1), then the new sibling 3 is flipped red and the
    // now-red parent 2 blackened (case 2).
    let (mut a, mut t) = one_to_six();
    assert_eq!(rb_erase_cached(&mut t, 1, &mut a), 2);
    check_invariants(&t, &a, less).expect("invariants");
    let s = shape(&t, &a);
    assert_eq!((s.root, s.leftmost), (4, 2));
    assert_eq!(
        s.nodes,
        vec![
            (2, B, N, 3),
            (3, R, N, N),
            (4, B, 2, 5),
            (5, B, N, 6),
            (6, R, N, N)
        ]
    );
    assert_eq!(
        t.take_log(),
        vec![
            RbOp::Erase { id: 1 },
            RbOp::RotateLeft { id: 2 },
            RbOp::Recolor { id: 4, color: B },
            RbOp::Recolor { id: 2, color: R },
            RbOp::Recolor { id: 3, color: R },
            RbOp::Recolor { id: 2, color: B },
        ]
    );
}

#[test]
fn equal_keys_queue_in_insertion_order() {
    let mut a = Arena {
        keys: vec![7; 5],
        nodes: vec![RbNode::default(); 5],
    };
    let mut t = RbRootCached::new();
    for id in 0..5 {
        let became_leftmost = rb_add_cached(&mut t, id, &mut a, less);
        assert_eq!(became_leftmost, id == 0);
    }
    check_invariants(&t, &a, less).expect("invariants");
    let order: Vec<u32> = shape(&t, &a).nodes.iter().map(|n| n.0).collect();
    assert_eq!(order, vec![0, 1, 2, 3, 4]);
    assert_eq!(t.log, None);
}

#[test]
fn navigation_and_clearing() {
    let (mut a, mut t) = one_to_six();
    assert_eq!(rb_first_cached(&t), 1);
    assert_eq!(rb_first(&a, &t), 1);
    assert_eq!(rb_last(&a, &t), 6);
    assert_eq!(rb_next(&a, 3), 4);
    assert_eq!(rb_next(&a, 6), NIL);
    assert_eq!(rb_prev(&a, 3), 2);
    assert_eq!(rb_prev(&a, 1), NIL);
    assert!(!rb_empty_node(&a, 3));
    rb_erase_cached(&mut t, 3, &mut a);
    rb_clear_node(&mut a, 3);
    assert!(rb_empty_node(&a, 3));
    assert_eq!(rb_next(&a, 3), NIL);
    assert_eq!(rb_prev(&a, 3), NIL);
    let empty = RbRootCached::new();
    assert_eq!(rb_last(&a, &empty), NIL);
    assert_eq!(check_invariants(&empty, &a, less), Ok(0));
}

#[test]
fn check_invariants_catches_corruption() {
    let (mut a, t) = one_to_six();
    a.nodes[4].color = B; // 4 black: black heights under 2 become unequal
    assert!(check_invariants(&t, &a, less).is_err());
    a.nodes[4].color = R;
    a.keys[3] = 100; // 3 now out of order
    assert!(check_invariants(&t, &a, less).is_err());
}
