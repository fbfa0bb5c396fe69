//! Shape reporting (for the app's tree view) and invariant checking (for tests and debug runs).

use super::{rb_first, rb_next, Color, RbAccess, RbRootCached, CLEARED, NIL};

/// Snapshot of a tree's shape: enough for the app to draw it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RbShape {
    pub root: u32,
    pub leftmost: u32,
    /// `(id, colour, left child, right child)` in in-order (sorted) order.
    pub nodes: Vec<(u32, Color, u32, u32)>,
}

/// Shape of the tree in in-order. Not a kernel function: the kernel has no need to draw itself.
pub fn shape<A: RbAccess + ?Sized>(root: &RbRootCached, acc: &A) -> RbShape {
    let mut nodes = Vec::new();
    let mut n = rb_first(acc, root);
    while n != NIL {
        let r = acc.node(n);
        nodes.push((n, r.color, r.left, r.right));
        n = rb_next(acc, n);
    }
    RbShape {
        root: root.root,
        leftmost: root.leftmost,
        nodes,
    }
}

/// A red-black tree over u32 ids cannot be taller than twice the bits of an id, plus slack;
/// anything deeper is corruption (likely a cycle) and is reported instead of recursing on.
const MAX_DEPTH: usize = 2 * 33;

/// Checks every structural invariant and returns the black height (NIL leaves not counted).
/// Not a kernel function; it plays the role of lib/rbtree_test.c's `check()`.
///
/// Checked: root black with no parent; parent links consistent; no node marked cleared;
/// no red node with a red child; equal black heights; in-order non-decreasing under `less`
/// (equal keys allowed); `leftmost` is the first node in order.
pub fn check_invariants<A, L>(root: &RbRootCached, acc: &A, less: L) -> Result<usize, String>
where
    A: RbAccess + ?Sized,
    L: Fn(&A, u32, u32) -> bool,
{
    if root.root == NIL {
        if root.leftmost != NIL {
            return Err(format!("empty tree but leftmost = {}", root.leftmost));
        }
        return Ok(0);
    }
    let r = acc.node(root.root);
    if r.parent != NIL {
        return Err(format!("root {} has parent {}", root.root, r.parent));
    }
    if r.color != Color::Black {
        return Err(format!("root {} is red", root.root));
    }
    let mut order = Vec::new();
    let bh = walk(acc, root.root, 0, &mut order)?;
    for w in order.windows(2) {
        if less(acc, w[1], w[0]) {
            return Err(format!(
                "order violated: {} sorts before its predecessor {}",
                w[1], w[0]
            ));
        }
    }
    if order.first().copied() != Some(root.leftmost) {
        return Err(format!(
            "leftmost is {} but first in order is {:?}",
            root.leftmost,
            order.first()
        ));
    }
    Ok(bh)
}

/// Recursive check of the subtree at `id`, pushing ids in in-order; returns its black height.
fn walk<A: RbAccess + ?Sized>(
    acc: &A,
    id: u32,
    depth: usize,
    order: &mut Vec<u32>,
) -> Result<usize, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "tree deeper than {MAX_DEPTH} at node {id}: corrupt or cyclic"
        ));
    }
    let n = *acc.node(id);
    if n.parent == CLEARED {
        return Err(format!("node {id} is linked but marked cleared"));
    }
    let left = child(acc, id, n.color, n.left, depth, order)?;
    order.push(id);
    let right = child(acc, id, n.color, n.right, depth, order)?;
    let heights = [left, right];
    if heights[0] != heights[1] {
        return Err(format!(
            "black heights differ under {id}: left {} right {}",
            heights[0], heights[1]
        ));
    }
    Ok(heights[0] + usize::from(n.color == Color::Black))
}

/// Checks the link from `id` (of colour `color`) down to `child`, then the child's subtree.
fn child<A: RbAccess + ?Sized>(
    acc: &A,
    id: u32,
    color: Color,
    child: u32,
    depth: usize,
    order: &mut Vec<u32>,
) -> Result<usize, String> {
    if child == NIL {
        return Ok(0);
    }
    let c = acc.node(child);
    // Checking the back link before descending also rules out cycles.
    if c.parent != id {
        return Err(format!(
            "node {child} is a child of {id} but its parent is {}",
            c.parent
        ));
    }
    if color == Color::Red && c.color == Color::Red {
        return Err(format!("red node {id} has red child {child}"));
    }
    walk(acc, child, depth + 1, order)
}
