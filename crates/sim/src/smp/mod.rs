//! The fair class across CPUs: the machine's topology, its scheduling domains, wakeup and fork
//! placement and the load balancer, beside `cfs/` and `eevdf/` (one runqueue) and `group/`
//! (task groups). The engine calls in at the kernel's call sites only: `schedule()`'s
//! newly-idle balance, the tick's periodic balance, `try_to_wake_up()` and
//! `wake_up_new_task()`'s CPU selection.
//!
//! - `placement.rs`: `select_task_rq_fair()` and `find_idlest_cpu()`, as modelled;
//! - `balance.rs`: the domains and the count-based balancer, as modelled (docs/model.md,
//!   "Many CPUs").

pub mod balance;
pub mod placement;

pub use balance::{Level, Smp};
