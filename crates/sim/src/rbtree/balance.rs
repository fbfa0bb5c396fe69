//! The rebalancing core: `__rb_insert()`, `__rb_erase_augmented()` and `____rb_erase_color()`.
//!
//! The pointer updates follow the kernel's order and its shortcuts (e.g. insert case 2 and
//! erase case 3 leave a parent link stale for the following rotation to fix), because the
//! augment callbacks run between them and must see the same intermediate trees as in the
//! kernel. Both mirror-image halves are written out, as in lib/rbtree.c, so each can be read
//! side by side with the C.

use super::{Callbacks, Color, RbAccess, RbOp, RbRootCached, NIL};

#[inline(always)]
fn is_red<A: RbAccess + ?Sized>(acc: &A, id: u32) -> bool {
    acc.node(id).color == Color::Red
}

/// `id != NULL && rb_is_red(id)`.
#[inline(always)]
fn is_red_nn<A: RbAccess + ?Sized>(acc: &A, id: u32) -> bool {
    id != NIL && is_red(acc, id)
}

/// `!id || rb_is_black(id)`.
#[inline(always)]
fn is_black_or_nil<A: RbAccess + ?Sized>(acc: &A, id: u32) -> bool {
    id == NIL || !is_red(acc, id)
}

#[inline(always)]
fn set_color<A: RbAccess + ?Sized>(root: &mut RbRootCached, acc: &mut A, id: u32, color: Color) {
    let n = acc.node_mut(id);
    if n.color != color {
        n.color = color;
        root.record(RbOp::Recolor { id, color });
    }
}

/// `rb_set_parent_color()`.
#[inline(always)]
fn set_parent_color<A: RbAccess + ?Sized>(
    root: &mut RbRootCached,
    acc: &mut A,
    id: u32,
    parent: u32,
    color: Color,
) {
    acc.node_mut(id).parent = parent;
    set_color(root, acc, id, color);
}

/// `__rb_change_child()`: make `parent` (or the root) point at `new` instead of `old`.
#[inline(always)]
fn change_child<A: RbAccess + ?Sized>(
    root: &mut RbRootCached,
    acc: &mut A,
    old: u32,
    new: u32,
    parent: u32,
) {
    if parent != NIL {
        let p = acc.node_mut(parent);
        if p.left == old {
            p.left = new;
        } else {
            p.right = new;
        }
    } else {
        root.root = new;
    }
}

/// `__rb_rotate_set_parents()`: `new` takes `old`'s parent and colour, `old` hangs under `new`
/// with `color`.
#[inline(always)]
fn rotate_set_parents<A: RbAccess + ?Sized>(
    root: &mut RbRootCached,
    acc: &mut A,
    old: u32,
    new: u32,
    color: Color,
) {
    let (parent, old_color) = {
        let o = acc.node(old);
        (o.parent, o.color)
    };
    set_parent_color(root, acc, new, parent, old_color);
    set_parent_color(root, acc, old, new, color);
    change_child(root, acc, old, new, parent);
}

/// Port of `__rb_insert()` (lib/rbtree.c): restore the red-black properties after `node` was
/// linked as a red leaf.
pub(super) fn insert_color<A, C>(root: &mut RbRootCached, acc: &mut A, mut node: u32)
where
    A: RbAccess + ?Sized,
    C: Callbacks<A>,
{
    let mut parent = acc.node(node).parent;
    loop {
        // Loop invariant: node is red.
        if parent == NIL {
            // node is the root: either the first node, or case 1 recursed up to the top.
            set_parent_color(root, acc, node, NIL, Color::Black);
            break;
        }
        if !is_red(acc, parent) {
            break;
        }
        // parent is red, hence not the root: gparent exists.
        let gparent = acc.node(parent).parent;
        debug_assert!(gparent != NIL, "red root");
        let mut tmp = acc.node(gparent).right;
        if parent != tmp {
            // parent is gparent's left child.
            if is_red_nn(acc, tmp) {
                // Case 1: red uncle -> colour flips, then recurse at gparent.
                set_parent_color(root, acc, tmp, gparent, Color::Black);
                set_parent_color(root, acc, parent, gparent, Color::Black);
                node = gparent;
                parent = acc.node(node).parent;
                set_parent_color(root, acc, node, parent, Color::Red);
                continue;
            }
            tmp = acc.node(parent).right;
            if node == tmp {
                // Case 2: node is the right child -> left rotate at parent, then case 3.
                root.record(RbOp::RotateLeft { id: parent });
                tmp = acc.node(node).left;
                acc.node_mut(parent).right = tmp;
                acc.node_mut(node).left = parent;
                if tmp != NIL {
                    set_parent_color(root, acc, tmp, parent, Color::Black);
                }
                set_parent_color(root, acc, parent, node, Color::Red);
                C::rotate(acc, parent, node);
                parent = node;
                tmp = acc.node(node).right;
            }
            // Case 3: node is the left child -> right rotate at gparent.
            root.record(RbOp::RotateRight { id: gparent });
            acc.node_mut(gparent).left = tmp;
            acc.node_mut(parent).right = gparent;
            if tmp != NIL {
                set_parent_color(root, acc, tmp, gparent, Color::Black);
            }
            rotate_set_parents(root, acc, gparent, parent, Color::Red);
            C::rotate(acc, gparent, parent);
            break;
        } else {
            tmp = acc.node(gparent).left;
            if is_red_nn(acc, tmp) {
                // Case 1: colour flips.
                set_parent_color(root, acc, tmp, gparent, Color::Black);
                set_parent_color(root, acc, parent, gparent, Color::Black);
                node = gparent;
                parent = acc.node(node).parent;
                set_parent_color(root, acc, node, parent, Color::Red);
                continue;
            }
            tmp = acc.node(parent).left;
            if node == tmp {
                // Case 2: right rotate at parent.
                root.record(RbOp::RotateRight { id: parent });
                tmp = acc.node(node).right;
                acc.node_mut(parent).left = tmp;
                acc.node_mut(node).right = parent;
                if tmp != NIL {
                    set_parent_color(root, acc, tmp, parent, Color::Black);
                }
                set_parent_color(root, acc, parent, node, Color::Red);
                C::rotate(acc, parent, node);
                parent = node;
                tmp = acc.node(node).left;
            }
            // Case 3: left rotate at gparent.
            root.record(RbOp::RotateLeft { id: gparent });
            acc.node_mut(gparent).right = tmp;
            acc.node_mut(parent).left = gparent;
            if tmp != NIL {
                set_parent_color(root, acc, tmp, gparent, Color::Black);
            }
            rotate_set_parents(root, acc, gparent, parent, Color::Red);
            C::rotate(acc, gparent, parent);
            break;
        }
    }
}

/// Port of `__rb_erase_augmented()` (include/linux/rbtree_augmented.h): unlink `node`, using
/// its successor as replacement when it has two children. Returns the node at which
/// `erase_color` must rebalance, or `NIL`.
pub(super) fn erase_augmented<A, C>(root: &mut RbRootCached, acc: &mut A, node: u32) -> u32
where
    A: RbAccess + ?Sized,
    C: Callbacks<A>,
{
    let (child, left, pc_parent, pc_color) = {
        let n = acc.node(node);
        (n.right, n.left, n.parent, n.color)
    };
    let rebalance;
    let propagate_from;

    if left == NIL {
        // Case 1: at most one child (the right one). A lone child must be red and node black,
        // so giving the child node's colour fixes the black height without rebalancing.
        change_child(root, acc, node, child, pc_parent);
        if child != NIL {
            set_parent_color(root, acc, child, pc_parent, pc_color);
            rebalance = NIL;
        } else {
            rebalance = if pc_color == Color::Black {
                pc_parent
            } else {
                NIL
            };
        }
        propagate_from = pc_parent;
    } else if child == NIL {
        // Still case 1, with the child on the left.
        set_parent_color(root, acc, left, pc_parent, pc_color);
        change_child(root, acc, node, left, pc_parent);
        rebalance = NIL;
        propagate_from = pc_parent;
    } else {
        let mut successor = child;
        let mut parent;
        let child2;
        let mut tmp = acc.node(child).left;
        if tmp == NIL {
            // Case 2: the successor is node's right child.
            parent = successor;
            child2 = acc.node(successor).right;
            C::copy(acc, node, successor);
        } else {
            // Case 3: the successor is the leftmost node of node's right subtree.
            loop {
                parent = successor;
                successor = tmp;
                tmp = acc.node(tmp).left;
                if tmp == NIL {
                    break;
                }
            }
            child2 = acc.node(successor).right;
            acc.node_mut(parent).left = child2;
            acc.node_mut(successor).right = child;
            acc.node_mut(child).parent = successor;
            C::copy(acc, node, successor);
            C::propagate(acc, parent, successor);
        }
        root.record(RbOp::Replace {
            old: node,
            new: successor,
        });

        acc.node_mut(successor).left = left;
        acc.node_mut(left).parent = successor;
        change_child(root, acc, node, successor, pc_parent);

        if child2 != NIL {
            set_parent_color(root, acc, child2, parent, Color::Black);
            rebalance = NIL;
        } else {
            rebalance = if is_red(acc, successor) { NIL } else { parent };
        }
        set_parent_color(root, acc, successor, pc_parent, pc_color);
        propagate_from = successor;
    }

    C::propagate(acc, propagate_from, NIL);
    rebalance
}

/// Port of `____rb_erase_color()` (lib/rbtree.c): all paths through `parent`'s (now NIL or
/// black) child `node` are one black short; fix it with recolouring and up to three rotations.
pub(super) fn erase_color<A, C>(root: &mut RbRootCached, acc: &mut A, mut parent: u32)
where
    A: RbAccess + ?Sized,
    C: Callbacks<A>,
{
    let mut node = NIL;
    loop {
        // Invariants: node is black (or NIL on the first pass), parent is not NIL, and paths
        // through node have one black node fewer than the others.
        let mut sibling = acc.node(parent).right;
        if node != sibling {
            // A black-height deficit on the left means the right side has a black node.
            debug_assert!(sibling != NIL, "missing sibling in erase rebalance");
            // node is parent's left child.
            if is_red(acc, sibling) {
                // Case 1: red sibling -> left rotate at parent.
                root.record(RbOp::RotateLeft { id: parent });
                let tmp1 = acc.node(sibling).left;
                acc.node_mut(parent).right = tmp1;
                acc.node_mut(sibling).left = parent;
                debug_assert!(tmp1 != NIL, "red sibling without black children");
                set_parent_color(root, acc, tmp1, parent, Color::Black);
                rotate_set_parents(root, acc, parent, sibling, Color::Red);
                C::rotate(acc, parent, sibling);
                sibling = tmp1;
            }
            let mut tmp1 = acc.node(sibling).right;
            if is_black_or_nil(acc, tmp1) {
                let tmp2 = acc.node(sibling).left;
                if is_black_or_nil(acc, tmp2) {
                    // Case 2: sibling colour flip; fix by blackening a red parent or recurse.
                    set_parent_color(root, acc, sibling, parent, Color::Red);
                    if is_red(acc, parent) {
                        set_color(root, acc, parent, Color::Black);
                    } else {
                        node = parent;
                        parent = acc.node(node).parent;
                        if parent != NIL {
                            continue;
                        }
                    }
                    break;
                }
                // Case 3: right rotate at sibling (sibling's parent link is fixed by case 4).
                root.record(RbOp::RotateRight { id: sibling });
                tmp1 = acc.node(tmp2).right;
                acc.node_mut(sibling).left = tmp1;
                acc.node_mut(tmp2).right = sibling;
                acc.node_mut(parent).right = tmp2;
                if tmp1 != NIL {
                    set_parent_color(root, acc, tmp1, sibling, Color::Black);
                }
                C::rotate(acc, sibling, tmp2);
                tmp1 = sibling;
                sibling = tmp2;
            }
            // Case 4: left rotate at parent + colour flips.
            root.record(RbOp::RotateLeft { id: parent });
            let tmp2 = acc.node(sibling).left;
            acc.node_mut(parent).right = tmp2;
            acc.node_mut(sibling).left = parent;
            set_parent_color(root, acc, tmp1, sibling, Color::Black);
            if tmp2 != NIL {
                acc.node_mut(tmp2).parent = parent;
            }
            rotate_set_parents(root, acc, parent, sibling, Color::Black);
            C::rotate(acc, parent, sibling);
            break;
        } else {
            sibling = acc.node(parent).left;
            debug_assert!(sibling != NIL, "missing sibling in erase rebalance");
            if is_red(acc, sibling) {
                // Case 1: right rotate at parent.
                root.record(RbOp::RotateRight { id: parent });
                let tmp1 = acc.node(sibling).right;
                acc.node_mut(parent).left = tmp1;
                acc.node_mut(sibling).right = parent;
                debug_assert!(tmp1 != NIL, "red sibling without black children");
                set_parent_color(root, acc, tmp1, parent, Color::Black);
                rotate_set_parents(root, acc, parent, sibling, Color::Red);
                C::rotate(acc, parent, sibling);
                sibling = tmp1;
            }
            let mut tmp1 = acc.node(sibling).left;
            if is_black_or_nil(acc, tmp1) {
                let tmp2 = acc.node(sibling).right;
                if is_black_or_nil(acc, tmp2) {
                    // Case 2: sibling colour flip.
                    set_parent_color(root, acc, sibling, parent, Color::Red);
                    if is_red(acc, parent) {
                        set_color(root, acc, parent, Color::Black);
                    } else {
                        node = parent;
                        parent = acc.node(node).parent;
                        if parent != NIL {
                            continue;
                        }
                    }
                    break;
                }
                // Case 3: left rotate at sibling.
                root.record(RbOp::RotateLeft { id: sibling });
                tmp1 = acc.node(tmp2).left;
                acc.node_mut(sibling).right = tmp1;
                acc.node_mut(tmp2).left = sibling;
                acc.node_mut(parent).left = tmp2;
                if tmp1 != NIL {
                    set_parent_color(root, acc, tmp1, sibling, Color::Black);
                }
                C::rotate(acc, sibling, tmp2);
                tmp1 = sibling;
                sibling = tmp2;
            }
            // Case 4: right rotate at parent + colour flips.
            root.record(RbOp::RotateRight { id: parent });
            let tmp2 = acc.node(sibling).right;
            acc.node_mut(parent).left = tmp2;
            acc.node_mut(sibling).right = parent;
            set_parent_color(root, acc, tmp1, sibling, Color::Black);
            if tmp2 != NIL {
                acc.node_mut(tmp2).parent = parent;
            }
            rotate_set_parents(root, acc, parent, sibling, Color::Black);
            C::rotate(acc, parent, sibling);
            break;
        }
    }
}
