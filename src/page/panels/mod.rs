//! The panels of the page, one module each: what to ask the worker and how to show its
//! answers. A panel keeps no scheduling logic; every figure comes from the worker.

pub(crate) mod groups;
pub(crate) mod inside;
pub(crate) mod lesson;
pub(crate) mod scheduler;
pub(crate) mod measure;
pub(crate) mod sweep;
pub(crate) mod tasks;
