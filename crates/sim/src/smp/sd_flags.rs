//! The sched domain flags (include/linux/sched/sd_flags.h, 6.18.44), with the kernel's bit
//! values: each flag is `1 << its index` in the header, so a flags word reads as it does in
//! the kernel. `SD_SHARE_LLC` was `SD_SHARE_PKG_RESOURCES` before 6.10; 6.18 has no
//! `SD_OVERLAP` (the NUMA levels' `SD_NUMA` chooses the overlapping group builder).

pub const SD_BALANCE_NEWIDLE: u32 = 1 << 0;
pub const SD_BALANCE_EXEC: u32 = 1 << 1;
pub const SD_BALANCE_FORK: u32 = 1 << 2;
pub const SD_BALANCE_WAKE: u32 = 1 << 3;
pub const SD_WAKE_AFFINE: u32 = 1 << 4;
pub const SD_ASYM_CPUCAPACITY: u32 = 1 << 5;
pub const SD_ASYM_CPUCAPACITY_FULL: u32 = 1 << 6;
pub const SD_SHARE_CPUCAPACITY: u32 = 1 << 7;
pub const SD_CLUSTER: u32 = 1 << 8;
pub const SD_SHARE_LLC: u32 = 1 << 9;
pub const SD_SERIALIZE: u32 = 1 << 10;
pub const SD_ASYM_PACKING: u32 = 1 << 11;
pub const SD_PREFER_SIBLING: u32 = 1 << 12;
pub const SD_NUMA: u32 = 1 << 13;

/// The flags in header order, with their names (`sd_flag_debug[]`, what debugfs prints).
pub const SD_FLAG_NAMES: [(u32, &str); 14] = [
    (SD_BALANCE_NEWIDLE, "SD_BALANCE_NEWIDLE"),
    (SD_BALANCE_EXEC, "SD_BALANCE_EXEC"),
    (SD_BALANCE_FORK, "SD_BALANCE_FORK"),
    (SD_BALANCE_WAKE, "SD_BALANCE_WAKE"),
    (SD_WAKE_AFFINE, "SD_WAKE_AFFINE"),
    (SD_ASYM_CPUCAPACITY, "SD_ASYM_CPUCAPACITY"),
    (SD_ASYM_CPUCAPACITY_FULL, "SD_ASYM_CPUCAPACITY_FULL"),
    (SD_SHARE_CPUCAPACITY, "SD_SHARE_CPUCAPACITY"),
    (SD_CLUSTER, "SD_CLUSTER"),
    (SD_SHARE_LLC, "SD_SHARE_LLC"),
    (SD_SERIALIZE, "SD_SERIALIZE"),
    (SD_ASYM_PACKING, "SD_ASYM_PACKING"),
    (SD_PREFER_SIBLING, "SD_PREFER_SIBLING"),
    (SD_NUMA, "SD_NUMA"),
];

/// `SD_DEGENERATE_GROUPS_MASK`: the flags marked SDF_NEEDS_GROUPS, which is every flag but
/// SD_WAKE_AFFINE.
pub const SD_DEGENERATE_GROUPS_MASK: u32 = ((1 << 14) - 1) & !SD_WAKE_AFFINE;

/// `SD_SHARED_CHILD_MASK`: the flags marked SDF_SHARED_CHILD, set from the base domain up;
/// `highest_flag_domain()` stops at the first domain without one of them.
pub const SD_SHARED_CHILD_MASK: u32 =
    SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_BALANCE_WAKE | SD_WAKE_AFFINE | SD_SHARE_CPUCAPACITY | SD_SHARE_LLC;

/// The names of the flags set in `flags`, in header order.
pub fn names(flags: u32) -> Vec<&'static str> {
    SD_FLAG_NAMES.iter().filter(|(f, _)| flags & f != 0).map(|(_, n)| *n).collect()
}
