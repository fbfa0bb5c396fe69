//! Replays a step's rb-tree operation log (the core's `RbOp`s) on the tree as it was before the
//! step, giving the intermediate trees so the page can show an insert, an erase and each
//! rotation one after the other. Structure only: which node hangs where and its colour; no
//! keys are compared (the log says where each insert went). The final replayed tree must equal
//! the tree the core holds after the step, or no frames are sent.

use std::collections::HashMap;

use crate::wire::insight::Frame;
use crate::wire::proto::NONE;

#[derive(Clone, Copy)]
struct N {
    left: u32,
    right: u32,
    parent: u32,
    red: bool,
}

/// An operation as the core logged it, in the message's terms (entities; NONE for nil).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Insert { id: u32, parent: u32, left: bool },
    Erase { id: u32 },
    RotateLeft { id: u32 },
    RotateRight { id: u32 },
    Recolor { id: u32, red: bool },
    Replace { old: u32, new: u32 },
}

struct T {
    root: u32,
    n: HashMap<u32, N>,
}

impl T {
    fn get(&mut self, id: u32) -> Option<&mut N> {
        self.n.get_mut(&id)
    }

    fn change_child(&mut self, old: u32, new: u32, parent: u32) {
        if parent == NONE {
            self.root = new;
        } else if let Some(p) = self.get(parent) {
            if p.left == old {
                p.left = new;
            } else {
                p.right = new;
            }
        }
    }

    fn set_parent(&mut self, id: u32, parent: u32) {
        if let Some(x) = self.get(id) {
            x.parent = parent;
        }
    }

    /// Rotate about `x`: its `right` (left rotation) or left child takes its place.
    fn rotate(&mut self, x: u32, left: bool) -> Option<()> {
        let xn = *self.n.get(&x)?;
        let y = if left { xn.right } else { xn.left };
        let yn = *self.n.get(&y)?;
        let inner = if left { yn.left } else { yn.right };
        {
            let xm = self.get(x)?;
            if left {
                xm.right = inner;
            } else {
                xm.left = inner;
            }
            xm.parent = y;
        }
        {
            let ym = self.get(y)?;
            if left {
                ym.left = x;
            } else {
                ym.right = x;
            }
            ym.parent = xn.parent;
        }
        self.set_parent(inner, x);
        self.change_child(x, y, xn.parent);
        Some(())
    }

    /// `__rb_erase_augmented()`'s relinking (colours follow as logged recolours).
    fn erase(&mut self, id: u32) -> Option<()> {
        let n = self.n.remove(&id)?;
        if n.left == NONE || n.right == NONE {
            let child = if n.left == NONE { n.right } else { n.left };
            self.change_child(id, child, n.parent);
            self.set_parent(child, n.parent);
            return Some(());
        }
        // The successor: the leftmost node of the right subtree.
        let mut s = n.right;
        while let Some(l) = self.n.get(&s).map(|x| x.left).filter(|&l| l != NONE) {
            s = l;
        }
        let sn = *self.n.get(&s)?;
        if s != n.right {
            let child2 = sn.right;
            if let Some(p) = self.get(sn.parent) {
                p.left = child2;
            }
            self.set_parent(child2, sn.parent);
            self.get(s)?.right = n.right;
            self.set_parent(n.right, s);
        }
        self.get(s)?.left = n.left;
        self.set_parent(n.left, s);
        self.get(s)?.parent = n.parent;
        self.change_child(id, s, n.parent);
        Some(())
    }

    fn frame(&self, op: usize) -> Frame {
        let mut nodes: Vec<(u32, bool, u32, u32)> = self.n.iter().map(|(&id, x)| (id, x.red, x.left, x.right)).collect();
        nodes.sort_unstable_by_key(|x| x.0);
        Frame { root: self.root, nodes, op: op as u32 }
    }
}

/// The trees after each structural operation (insert, erase, rotation) with the recolourings
/// that follow it, starting from `before` = (root, [(entity, red, left, right)]). Returns None
/// when the log does not lead from `before` to `after` (e.g. part of it was dropped).
pub fn replay(before: (u32, &[(u32, bool, u32, u32)]), steps: &[Step], after: (u32, &[(u32, bool, u32, u32)])) -> Option<Vec<Frame>> {
    let mut t = T { root: before.0, n: before.1.iter().map(|&(id, red, left, right)| (id, N { left, right, parent: NONE, red })).collect() };
    let links: Vec<(u32, u32, u32)> = before.1.iter().map(|&(id, _, l, r)| (id, l, r)).collect();
    for (id, l, r) in links {
        t.set_parent(l, id);
        t.set_parent(r, id);
    }
    let mut frames = Vec::new();
    let mut pending: Option<usize> = None;
    for (i, s) in steps.iter().enumerate() {
        let structural = !matches!(s, Step::Recolor { .. } | Step::Replace { .. });
        if structural {
            if let Some(k) = pending.take() {
                frames.push(t.frame(k));
            }
            pending = Some(i);
        }
        match *s {
            Step::Insert { id, parent, left } => {
                t.n.insert(id, N { left: NONE, right: NONE, parent, red: true });
                if parent == NONE {
                    t.root = id;
                } else {
                    let p = t.get(parent)?;
                    if left {
                        p.left = id;
                    } else {
                        p.right = id;
                    }
                }
            }
            Step::Erase { id } => t.erase(id)?,
            Step::RotateLeft { id } => t.rotate(id, true)?,
            Step::RotateRight { id } => t.rotate(id, false)?,
            Step::Recolor { id, red } => t.get(id)?.red = red,
            Step::Replace { .. } => {}
        }
    }
    if let Some(k) = pending {
        frames.push(t.frame(k));
    }
    let mut want: Vec<(u32, bool, u32, u32)> = after.1.to_vec();
    want.sort_unstable_by_key(|x| x.0);
    let last = t.frame(0);
    (last.root == after.0 && last.nodes == want).then_some(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: bool = true;
    const B: bool = false;

    #[test]
    fn an_insert_that_needs_a_rotation_is_shown_before_and_after_it() {
        // 1 (black root) with right child 2 (red); inserting 3 right of 2 makes a red-red
        // right-right line: __rb_insert() case 3 rotates left at 1, 2 becomes the black root.
        let before = [(1, B, NONE, 2), (2, R, NONE, NONE)];
        let steps = [
            Step::Insert { id: 3, parent: 2, left: false },
            Step::RotateLeft { id: 1 },
            Step::Recolor { id: 2, red: false },
            Step::Recolor { id: 1, red: true },
        ];
        let after = [(1, R, NONE, NONE), (2, B, 1, 3), (3, R, NONE, NONE)];
        let frames = replay((1, &before), &steps, (2, &after)).expect("the log leads to the tree after");
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].root, 1);
        assert_eq!(frames[0].nodes, vec![(1, B, NONE, 2), (2, R, NONE, 3), (3, R, NONE, NONE)]);
        assert_eq!((frames[1].root, frames[1].op), (2, 1));
    }

    #[test]
    fn erasing_a_node_with_two_children_puts_its_successor_in_its_place() {
        //        2
        //      1   4
        //         3 5      erase 2: successor 3 (case 3) takes 2's place and colour.
        let before = [(1, B, NONE, NONE), (2, B, 1, 4), (3, R, NONE, NONE), (4, B, 3, 5), (5, R, NONE, NONE)];
        // 3 is red and 2 was black: no rebalancing, 3 takes 2's colour (a logged recolour).
        let steps = [Step::Erase { id: 2 }, Step::Replace { old: 2, new: 3 }, Step::Recolor { id: 3, red: false }];
        let after = [(1, B, NONE, NONE), (3, B, 1, 4), (4, B, NONE, 5), (5, R, NONE, NONE)];
        assert!(replay((2, &before), &steps, (3, &after)).is_some());
        // A log that does not lead there (an operation dropped) gives no frames.
        assert!(replay((2, &before), &[], (3, &after)).is_none());
        // Nor does a log naming a node that is not there.
        assert!(replay((2, &before), &[Step::RotateLeft { id: 9 }], (3, &after)).is_none());
    }
}
