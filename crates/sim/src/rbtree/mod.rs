//! Intrusive red-black tree, a port of the algorithm of Linux's `lib/rbtree.c`,
//! `include/linux/rbtree_augmented.h` and the `_cached` helpers of `include/linux/rbtree.h`.
//!
//! The scheduler breaks ties between equal keys by tree shape (a new entity goes to the right
//! of its equals, and the pick walks the tree), so the simulator needs the kernel's exact
//! rebalancing — not just any balanced tree. Every case (insert cases 1-3, erase with successor
//! replacement, erase-colour cases 1-4) follows the kernel's pointer moves, so a sequence of
//! operations gives the same shape, colours and augmented values as in the kernel.
//!
//! Like the kernel, the tree is intrusive and owns nothing: nodes live in the caller's arena,
//! are named by `u32` ids, and an entity may embed several [`RbNode`]s (one per tree it can be
//! in). The caller says how to reach a node through [`RbAccess`], usually a small newtype view
//! over the arena per embedded field; augmented data (EEVDF's `min_deadline`, `min_vruntime`,
//! `min_slice`) stays in the caller's structs and is maintained through [`RbAugment`].

mod balance;
mod debug;
#[cfg(test)]
mod tests;

pub use debug::{check_invariants, shape, RbShape};

/// The null node id (the kernel's `NULL`).
pub const NIL: u32 = u32::MAX;

/// Parent value of a node that is in no tree.
///
/// The kernel points a cleared node's parent at itself; a fixed sentinel serves the same
/// purpose and lets `RbNode::default()` be "cleared" without knowing the node's own id.
pub const CLEARED: u32 = u32::MAX - 1;

/// Node colour (the low bit of the kernel's `__rb_parent_color`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Red,
    Black,
}

/// Links of one tree node, embedded in the caller's struct (the kernel's `struct rb_node`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RbNode {
    pub parent: u32,
    pub left: u32,
    pub right: u32,
    pub color: Color,
}

impl RbNode {
    /// A node that is in no tree (`RB_CLEAR_NODE`).
    pub const CLEARED: RbNode = RbNode {
        parent: CLEARED,
        left: NIL,
        right: NIL,
        color: Color::Red,
    };
}

impl Default for RbNode {
    fn default() -> Self {
        RbNode::CLEARED
    }
}

/// One step of tree surgery, recorded (when the log is enabled) so that the app can animate
/// exactly what the kernel's code did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RbOp {
    /// `id` was linked as a red leaf under `parent` (`NIL`: as the root), on the `left` side or not.
    Insert { id: u32, parent: u32, left: bool },
    /// Erasure of `id` begins (the unlink itself follows `Replace` when there is one).
    Erase { id: u32 },
    /// Left rotation about `id`: its right child takes its place, `id` becomes the left child.
    RotateLeft { id: u32 },
    /// Right rotation about `id`: its left child takes its place, `id` becomes the right child.
    RotateRight { id: u32 },
    /// `id` changed colour to `color` (logged only on an actual change).
    Recolor { id: u32, color: Color },
    /// The erased node `old` (which had two children) was replaced in place by its successor `new`.
    Replace { old: u32, new: u32 },
}

/// Tree head with cached leftmost node (the kernel's `struct rb_root_cached`), plus the
/// optional operation log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RbRootCached {
    pub root: u32,
    pub leftmost: u32,
    /// `None` (the default) costs one branch per logged event and allocates nothing.
    pub log: Option<Vec<RbOp>>,
}

impl Default for RbRootCached {
    fn default() -> Self {
        Self::new()
    }
}

impl RbRootCached {
    /// An empty tree without a log (`RB_ROOT_CACHED`).
    pub const fn new() -> Self {
        RbRootCached {
            root: NIL,
            leftmost: NIL,
            log: None,
        }
    }

    /// An empty tree that records every operation.
    pub fn with_log() -> Self {
        RbRootCached {
            root: NIL,
            leftmost: NIL,
            log: Some(Vec::new()),
        }
    }

    /// Models `RB_EMPTY_ROOT()`.
    pub fn is_empty(&self) -> bool {
        self.root == NIL
    }

    /// Returns the recorded operations and starts a fresh log (if logging is on).
    pub fn take_log(&mut self) -> Vec<RbOp> {
        match &mut self.log {
            Some(l) => std::mem::take(l),
            None => Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn record(&mut self, op: RbOp) {
        if let Some(l) = &mut self.log {
            l.push(op);
        }
    }
}

/// How the tree reaches the [`RbNode`] embedded in the caller's struct with a given id
/// (the kernel's `rb_entry()`/`container_of()` in reverse).
pub trait RbAccess {
    fn node(&self, id: u32) -> &RbNode;
    fn node_mut(&mut self, id: u32) -> &mut RbNode;
}

/// Augmented-tree callbacks (the kernel's `struct rb_augment_callbacks`).
///
/// Implement `augment_recompute` and `augment_copy`; the defaults of `augment_propagate` and
/// `augment_rotate` are exactly what `RB_DECLARE_CALLBACKS` generates. Override them only to
/// model a hand-written `rb_augment_callbacks`.
pub trait RbAugment: RbAccess {
    /// Recompute the augmented value(s) of `id` from its own value and its children's stored
    /// values; return whether anything changed. This is the negation of the kernel's
    /// `RBCOMPUTE(node, true)`, which returns true when propagation may stop.
    fn augment_recompute(&mut self, id: u32) -> bool;

    /// `RBNAME_copy`: give `new` the augmented value(s) of `old`. Copy only what the modelled
    /// kernel copies: v6.12's `min_vruntime_cb` copies `min_vruntime` but not `min_slice`.
    fn augment_copy(&mut self, old: u32, new: u32);

    /// `RBNAME_propagate`: recompute from `id` upwards, stopping at `stop` or as soon as a
    /// node's value does not change. Inline, as the kernel's `static inline` callbacks are:
    /// a call per insert and erase was a visible part of an EEVDF run.
    #[inline]
    fn augment_propagate(&mut self, mut id: u32, stop: u32) {
        while id != stop && id != NIL {
            if !self.augment_recompute(id) {
                break;
            }
            id = self.node(id).parent;
        }
    }

    /// `RBNAME_rotate`: `new` took `old`'s place, so it inherits `old`'s subtree value; `old`
    /// lost part of its subtree and is recomputed.
    #[inline]
    fn augment_rotate(&mut self, old: u32, new: u32) {
        self.augment_copy(old, new);
        self.augment_recompute(old);
    }
}

/// Compile-time choice between the dummy callbacks of `rb_insert_color()`/`rb_erase()` and
/// the caller's augment callbacks, so the non-augmented paths carry no augment cost.
pub(crate) trait Callbacks<A: RbAccess + ?Sized> {
    fn propagate(acc: &mut A, id: u32, stop: u32);
    fn copy(acc: &mut A, old: u32, new: u32);
    fn rotate(acc: &mut A, old: u32, new: u32);
}

pub(crate) struct Dummy;

impl<A: RbAccess + ?Sized> Callbacks<A> for Dummy {
    #[inline(always)]
    fn propagate(_: &mut A, _: u32, _: u32) {}
    #[inline(always)]
    fn copy(_: &mut A, _: u32, _: u32) {}
    #[inline(always)]
    fn rotate(_: &mut A, _: u32, _: u32) {}
}

pub(crate) struct Augmented;

impl<A: RbAugment + ?Sized> Callbacks<A> for Augmented {
    #[inline(always)]
    fn propagate(acc: &mut A, id: u32, stop: u32) {
        acc.augment_propagate(id, stop)
    }
    #[inline(always)]
    fn copy(acc: &mut A, old: u32, new: u32) {
        acc.augment_copy(old, new)
    }
    #[inline(always)]
    fn rotate(acc: &mut A, old: u32, new: u32) {
        acc.augment_rotate(old, new)
    }
}

/// Models `RB_CLEAR_NODE()` (include/linux/rbtree.h).
pub fn rb_clear_node<A: RbAccess + ?Sized>(acc: &mut A, id: u32) {
    acc.node_mut(id).parent = CLEARED;
}

/// Models `RB_EMPTY_NODE()` (include/linux/rbtree.h).
pub fn rb_empty_node<A: RbAccess + ?Sized>(acc: &A, id: u32) -> bool {
    acc.node(id).parent == CLEARED
}

/// Models `rb_first_cached()` (include/linux/rbtree.h).
pub fn rb_first_cached(root: &RbRootCached) -> u32 {
    root.leftmost
}

/// Models `rb_first()` (lib/rbtree.c): the walk, ignoring the cache.
pub fn rb_first<A: RbAccess + ?Sized>(acc: &A, root: &RbRootCached) -> u32 {
    let mut n = root.root;
    if n == NIL {
        return NIL;
    }
    while acc.node(n).left != NIL {
        n = acc.node(n).left;
    }
    n
}

/// Models `rb_last()` (lib/rbtree.c).
pub fn rb_last<A: RbAccess + ?Sized>(acc: &A, root: &RbRootCached) -> u32 {
    let mut n = root.root;
    if n == NIL {
        return NIL;
    }
    while acc.node(n).right != NIL {
        n = acc.node(n).right;
    }
    n
}

/// Models `rb_next()` (lib/rbtree.c).
pub fn rb_next<A: RbAccess + ?Sized>(acc: &A, id: u32) -> u32 {
    if rb_empty_node(acc, id) {
        return NIL;
    }
    let mut n = id;
    if acc.node(n).right != NIL {
        n = acc.node(n).right;
        while acc.node(n).left != NIL {
            n = acc.node(n).left;
        }
        return n;
    }
    // Climb while we are a right child; the first ancestor reached from its left is next.
    loop {
        let p = acc.node(n).parent;
        if p == NIL || acc.node(p).right != n {
            return p;
        }
        n = p;
    }
}

/// Models `rb_prev()` (lib/rbtree.c).
pub fn rb_prev<A: RbAccess + ?Sized>(acc: &A, id: u32) -> u32 {
    if rb_empty_node(acc, id) {
        return NIL;
    }
    let mut n = id;
    if acc.node(n).left != NIL {
        n = acc.node(n).left;
        while acc.node(n).right != NIL {
            n = acc.node(n).right;
        }
        return n;
    }
    loop {
        let p = acc.node(n).parent;
        if p == NIL || acc.node(p).left != n {
            return p;
        }
        n = p;
    }
}

/// The descent of `rb_add_cached()`: find the link, returning (parent, go-left, leftmost).
#[inline(always)]
fn find_link<A, L>(root: &RbRootCached, acc: &A, id: u32, less: &L) -> (u32, bool, bool)
where
    A: RbAccess + ?Sized,
    L: Fn(&A, u32, u32) -> bool,
{
    let mut parent = NIL;
    let mut link = root.root;
    let mut go_left = false;
    let mut leftmost = true;
    while link != NIL {
        parent = link;
        // Ties go right: a newcomer queues behind its equals, as in the kernel.
        if less(acc, id, parent) {
            link = acc.node(parent).left;
            go_left = true;
        } else {
            link = acc.node(parent).right;
            go_left = false;
            leftmost = false;
        }
    }
    (parent, go_left, leftmost)
}

/// Models `rb_link_node()`: attach `id` as a red leaf.
#[inline(always)]
fn link_node<A: RbAccess + ?Sized>(
    root: &mut RbRootCached,
    acc: &mut A,
    id: u32,
    parent: u32,
    left: bool,
) {
    *acc.node_mut(id) = RbNode {
        parent,
        left: NIL,
        right: NIL,
        color: Color::Red,
    };
    if parent == NIL {
        root.root = id;
    } else if left {
        acc.node_mut(parent).left = id;
    } else {
        acc.node_mut(parent).right = id;
    }
    root.record(RbOp::Insert { id, parent, left });
}

/// Models `rb_add_cached()` (include/linux/rbtree.h, v6.2): returns whether `id` became the
/// leftmost node (the kernel returns the node or NULL).
pub fn rb_add_cached<A, L>(root: &mut RbRootCached, id: u32, acc: &mut A, less: L) -> bool
where
    A: RbAccess + ?Sized,
    L: Fn(&A, u32, u32) -> bool,
{
    let (parent, go_left, leftmost) = find_link(root, acc, id, &less);
    link_node(root, acc, id, parent, go_left);
    if leftmost {
        root.leftmost = id;
    }
    balance::insert_color::<A, Dummy>(root, acc, id);
    leftmost
}

/// Models `rb_add_augmented_cached()` (include/linux/rbtree_augmented.h, v6.2).
///
/// As in the kernel, the caller must initialise `id`'s own augmented value (e.g.
/// `min_deadline = deadline`) before the call: propagation starts at the new node's parent.
pub fn rb_add_augmented_cached<A, L>(root: &mut RbRootCached, id: u32, acc: &mut A, less: L) -> bool
where
    A: RbAugment + ?Sized,
    L: Fn(&A, u32, u32) -> bool,
{
    let (parent, go_left, leftmost) = find_link(root, acc, id, &less);
    link_node(root, acc, id, parent, go_left);
    // The kernel propagates before rebalancing; rotations then keep values right locally.
    acc.augment_propagate(parent, NIL);
    if leftmost {
        root.leftmost = id;
    }
    balance::insert_color::<A, Augmented>(root, acc, id);
    leftmost
}

/// Models `rb_erase_cached()` (include/linux/rbtree.h, v6.2): returns the new leftmost node if
/// `id` was the leftmost, else `NIL`. Like the kernel, `id`'s links are left stale; call
/// [`rb_clear_node`] if [`rb_empty_node`] must report it as out of the tree.
pub fn rb_erase_cached<A: RbAccess + ?Sized>(root: &mut RbRootCached, id: u32, acc: &mut A) -> u32 {
    debug_assert!(!rb_empty_node(acc, id), "erasing a node that is in no tree");
    let mut leftmost = NIL;
    if root.leftmost == id {
        leftmost = rb_next(acc, id);
        root.leftmost = leftmost;
    }
    root.record(RbOp::Erase { id });
    let rebalance = balance::erase_augmented::<A, Dummy>(root, acc, id);
    if rebalance != NIL {
        balance::erase_color::<A, Dummy>(root, acc, rebalance);
    }
    leftmost
}

/// Models `rb_erase_augmented_cached()` (include/linux/rbtree_augmented.h, v6.2); returns what
/// [`rb_erase_cached`] returns (the kernel's version returns nothing).
pub fn rb_erase_augmented_cached<A: RbAugment + ?Sized>(
    root: &mut RbRootCached,
    id: u32,
    acc: &mut A,
) -> u32 {
    debug_assert!(!rb_empty_node(acc, id), "erasing a node that is in no tree");
    let mut leftmost = NIL;
    if root.leftmost == id {
        leftmost = rb_next(acc, id);
        root.leftmost = leftmost;
    }
    root.record(RbOp::Erase { id });
    let rebalance = balance::erase_augmented::<A, Augmented>(root, acc, id);
    if rebalance != NIL {
        balance::erase_color::<A, Augmented>(root, acc, rebalance);
    }
    leftmost
}
