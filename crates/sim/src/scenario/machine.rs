//! `machine.topology` and `machine.distance` (contract §4): the machine's shape, by its four
//! numbers or a preset's name, and its node distance table; checked against `machine.cpus`
//! and `machine.llc_size` once the whole `machine` object is read.

use super::fields::*;
use super::ScenarioError;
use crate::smp::topology::{presets, Topology};
use serde_json::Value;

type R<T> = Result<T, ScenarioError>;

const KEYS: &[&str] = &["threads_per_core", "cores_per_llc", "llcs_per_node", "nodes"];

/// `machine.topology`: a preset's name, or `{threads_per_core, cores_per_llc, llcs_per_node,
/// nodes}`, each a whole number from 1.
pub(crate) fn topology(v: &Value, path: &str) -> R<Topology> {
    if let Value::String(name) = v {
        return Topology::preset(name).ok_or_else(|| {
            let names: Vec<String> = presets().iter().map(|p| format!("\"{}\"", p.name)).collect();
            ScenarioError::at(path, format!("expected a topology object or one of {}, got \"{name}\"", names.join(", ")))
        });
    }
    if !v.is_object() {
        return Err(expected(path, "a topology object or a preset's name", v));
    }
    let o = obj(v, path)?;
    let mut got = [None; 4];
    for (k, x) in o {
        let kp = key(path, k);
        let Some(i) = KEYS.iter().position(|n| n == k) else {
            return Err(unknown(path, k, KEYS));
        };
        // threads_per_core up to SMT8 (POWER); the rest bounded by machine.cpus's 1024.
        let hi = if i == 0 { 8 } else { 1024 };
        got[i] = Some(u32_in(x, &kp, 1, hi)?);
    }
    let mut n = [0; 4];
    for (i, g) in got.iter().enumerate() {
        n[i] = g.ok_or_else(|| missing(path, KEYS[i]))?;
    }
    let mut t = Topology::flat(1, 1);
    t.threads_per_core = n[0];
    t.cores_per_llc = n[1];
    t.llcs_per_node = n[2];
    t.nodes = n[3];
    Ok(t)
}

/// `machine.distance`: a square table of whole numbers (checked against the nodes later).
pub(crate) fn distance(v: &Value, path: &str) -> R<Vec<Vec<u32>>> {
    let rows = arr(v, path)?;
    let mut d = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let rp = idx(path, i);
        let cols = arr(r, &rp)?;
        let mut row = Vec::with_capacity(cols.len());
        for (j, c) in cols.iter().enumerate() {
            row.push(u32_in(c, &idx(&rp, j), 1, 1000)?);
        }
        d.push(row);
    }
    Ok(d)
}

/// The checks across `machine`'s keys: `topology` and `llc_size` not both, the topology's
/// product equal to `cpus` (when `cpus` itself is valid), and the distance table
/// nodes × nodes with the kernel's rules. Returns the topology with its distances.
pub(crate) fn check(
    path: &str,
    cpus: Option<u32>,
    llc_size: Option<u32>,
    topology: Option<Topology>,
    distance: Option<Vec<Vec<u32>>>,
) -> R<Option<Topology>> {
    let tp = key(path, "topology");
    if topology.is_some() && llc_size.is_some() {
        let msg = "expected machine.topology or machine.llc_size, not both (llc_size is the topology {\"threads_per_core\": 1, \"cores_per_llc\": llc_size, \"llcs_per_node\": cpus / llc_size, \"nodes\": 1})";
        return Err(ScenarioError::at(key(path, "llc_size"), msg));
    }
    let Some(mut t) = topology else {
        if distance.is_some() {
            let msg = "expected machine.topology beside machine.distance (the table has a row and a column per node of the topology)";
            return Err(ScenarioError::at(key(path, "distance"), msg));
        }
        return Ok(None);
    };
    if let Some(d) = distance {
        let dp = key(path, "distance");
        let n = t.nodes as usize;
        if d.len() != n {
            let msg = format!("expected a {n} × {n} table (a row per node of machine.topology), got {} rows", d.len());
            return Err(ScenarioError::at(dp, msg));
        }
        if let Some(i) = d.iter().position(|r| r.len() != n) {
            return Err(ScenarioError::at(idx(&dp, i), format!("expected {n} distances (one per node), got {}", d[i].len())));
        }
        t.distance = d.into_iter().flatten().collect();
        if let Err((at, msg)) = t.check(t.cpus()) {
            return Err(ScenarioError::at(key(path, &at), msg));
        }
    }
    if let Some(c) = cpus {
        if let Err((at, msg)) = t.check(c) {
            let at = if at == "topology" { tp } else { key(path, &at) };
            return Err(ScenarioError::at(at, msg));
        }
    }
    Ok(Some(t))
}
