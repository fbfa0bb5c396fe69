//! Drawing: the page's copy of the slices and its level of detail, the colours and pixels of
//! lanes, the timeline canvas, charts and the animated PNG. Uses `wire` records; never imports
//! the worker.

pub mod apng;
pub mod format;
pub mod lod;
pub mod raster;

#[cfg(target_arch = "wasm32")]
pub mod charts;
#[cfg(target_arch = "wasm32")]
pub mod timeline;
