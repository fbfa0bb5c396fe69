//! What travels between the page and the worker: the messages and the plain records they
//! carry. Pure data and codecs, built natively and for wasm32; imports neither side.

pub mod ab;
pub mod import;
pub mod insight;
pub mod measure;
pub mod proto;
pub mod real;
pub mod settings;
pub mod sweep;
