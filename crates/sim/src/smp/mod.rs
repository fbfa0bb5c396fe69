//! The fair class across CPUs: the machine's topology, its scheduling domains, wakeup and fork
//! placement and the load balancer, beside `cfs/` and `eevdf/` (one runqueue) and `group/`
//! (task groups). The engine calls in at the kernel's call sites only: `schedule()`'s
//! newly-idle balance, the tick's periodic balance, `try_to_wake_up()` and
//! `wake_up_new_task()`'s CPU selection.
//!
//! - `topology.rs`: `machine.topology` and `machine.distance`, and the named machines;
//! - `mask.rs`: cpumasks;
//! - `sd_flags.rs`: the sched domain flags;
//! - `domains.rs`: `build_sched_domains()`: levels, groups, degenerate levels, `sd_llc`;
//! - `debug.rs`: the domains as debugfs and the boot log show them (`fairground domains`);
//! - `placement.rs`: `select_task_rq_fair()` and `find_idlest_cpu()`, as modelled;
//! - `balance.rs`: the domains and the count-based balancer, as modelled (docs/model.md,
//!   "Many CPUs").

pub mod balance;
pub mod debug;
pub mod domains;
pub mod mask;
pub mod placement;
pub mod sd_flags;
pub mod topology;

pub use balance::{Level, Smp};
pub use domains::Domains;
pub use mask::Mask;
pub use topology::Topology;
