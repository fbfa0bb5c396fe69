//! `rq->cfs_tasks`: per CPU, the tasks queued there (the running one included), most recently
//! picked first. The kernel keeps this list for the load balancer, which detaches tasks from
//! its tail (the least recently run, so the least cache-hot), and so does the model.
//!
//! It is an intrusive doubly linked list over task indices: adding, removing and moving a task
//! to the front cost O(1) and allocate nothing. It belongs to the engine, not to a policy, so
//! balancing reads the same list under every policy.

use crate::entity::NIL;

#[derive(Clone, Debug)]
pub struct CfsTasks {
    head: Vec<u32>,
    tail: Vec<u32>,
    len: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// The CPU whose list holds the task, NIL when on none.
    on: Vec<u32>,
}

impl CfsTasks {
    pub fn new(cpus: usize, tasks: usize) -> CfsTasks {
        CfsTasks {
            head: vec![NIL; cpus],
            tail: vec![NIL; cpus],
            len: vec![0; cpus],
            next: vec![NIL; tasks],
            prev: vec![NIL; tasks],
            on: vec![NIL; tasks],
        }
    }

    /// `list_add(&se->group_node, &rq->cfs_tasks)` in `account_entity_enqueue()`.
    pub fn add(&mut self, cpu: u32, t: u32) {
        debug_assert_eq!(self.on[t as usize], NIL, "task {t} already on a list");
        let (c, i) = (cpu as usize, t as usize);
        let h = self.head[c];
        self.next[i] = h;
        self.prev[i] = NIL;
        if h != NIL {
            self.prev[h as usize] = t;
        } else {
            self.tail[c] = t;
        }
        self.head[c] = t;
        self.len[c] += 1;
        self.on[i] = cpu;
    }

    /// `list_del_init(&se->group_node)` in `account_entity_dequeue()`. A task on no list is
    /// left alone.
    pub fn remove(&mut self, t: u32) {
        let i = t as usize;
        let cpu = self.on[i];
        if cpu == NIL {
            return;
        }
        let c = cpu as usize;
        let (p, n) = (self.prev[i], self.next[i]);
        if p != NIL {
            self.next[p as usize] = n;
        } else {
            self.head[c] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        } else {
            self.tail[c] = p;
        }
        self.len[c] -= 1;
        self.on[i] = NIL;
        self.next[i] = NIL;
        self.prev[i] = NIL;
    }

    /// `list_move(&p->se.group_node, &rq->cfs_tasks)` in `pick_next_task_fair()`: the picked
    /// task goes to the front, so the list is most-recently-run first.
    pub fn move_to_front(&mut self, t: u32) {
        let cpu = self.on[t as usize];
        if cpu == NIL || self.head[cpu as usize] == t {
            return;
        }
        // Not the head, so it has a predecessor and the list keeps its head: relink it in
        // place (what a remove and an add leave, without their bookkeeping; every switch
        // does this).
        let (c, i) = (cpu as usize, t as usize);
        let (p, n) = (self.prev[i], self.next[i]);
        self.next[p as usize] = n;
        if n != NIL {
            self.prev[n as usize] = p;
        } else {
            self.tail[c] = p;
        }
        let h = self.head[c];
        self.prev[h as usize] = t;
        self.next[i] = h;
        self.prev[i] = NIL;
        self.head[c] = t;
    }

    pub fn cpu_of(&self, t: u32) -> u32 {
        self.on[t as usize]
    }

    pub fn len(&self, cpu: u32) -> u32 {
        self.len[cpu as usize]
    }

    pub fn tail(&self, cpu: u32) -> u32 {
        self.tail[cpu as usize]
    }

    /// The task before `t` (towards the front), NIL at the head.
    pub fn prev(&self, t: u32) -> u32 {
        self.prev[t as usize]
    }

    /// Bytes held per CPU and per task (for the benchmark's memory figures).
    pub const BYTES_PER_CPU: usize = 3 * 4;
    pub const BYTES_PER_TASK: usize = 3 * 4;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(l: &CfsTasks, cpu: u32) -> Vec<u32> {
        let mut v = Vec::new();
        let mut t = l.tail(cpu);
        while t != NIL {
            v.push(t);
            t = l.prev(t);
        }
        v.reverse();
        // The same list read from the head, through `next`.
        let mut fwd = Vec::new();
        let mut t = l.head[cpu as usize];
        while t != NIL {
            fwd.push(t);
            t = l.next[t as usize];
        }
        assert_eq!(fwd, v, "next and prev links disagree");
        v
    }

    #[test]
    fn add_remove_move_keep_mru_order() {
        let mut l = CfsTasks::new(2, 5);
        for t in 0..4 {
            l.add(0, t);
        }
        assert_eq!(order(&l, 0), vec![3, 2, 1, 0]);
        l.move_to_front(0);
        assert_eq!(order(&l, 0), vec![0, 3, 2, 1]);
        l.move_to_front(2);
        assert_eq!(order(&l, 0), vec![2, 0, 3, 1]);
        l.move_to_front(1);
        assert_eq!(order(&l, 0), vec![1, 2, 0, 3]);
        l.move_to_front(1);
        assert_eq!(order(&l, 0), vec![1, 2, 0, 3]);
        assert_eq!(l.head[0], 1);
        l.move_to_front(3);
        l.move_to_front(0);
        l.move_to_front(2);
        assert_eq!(order(&l, 0), vec![2, 0, 3, 1]);
        assert_eq!(l.len(0), 4);
        l.remove(2);
        assert_eq!(order(&l, 0), vec![0, 3, 1]);
        assert_eq!(l.len(0), 3);
        l.remove(1);
        l.remove(0);
        l.remove(3);
        assert_eq!(l.len(0), 0);
        assert_eq!(l.tail(0), NIL);
        l.add(1, 4);
        assert_eq!(l.cpu_of(4), 1);
        assert_eq!(order(&l, 1), vec![4]);
        l.remove(4);
        l.remove(4);
        assert_eq!(l.cpu_of(4), NIL);
    }
}
