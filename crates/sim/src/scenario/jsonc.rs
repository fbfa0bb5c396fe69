//! JSONC (placeholder)
