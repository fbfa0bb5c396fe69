//! The report of every shipped scenario is byte-identical to the one committed under
//! `tests/fixtures/reports/`: a speed-up or a refactoring must not change one decision. A
//! change that alters behaviour on purpose regenerates them in the same commit
//! (`FAIRGROUND_BLESS=1 cargo test -p fairground-sim --test shipped_reports`) and says why.

use fairground_sim::{run_text, Limits};
use std::path::Path;

#[test]
fn shipped_scenarios_report_as_committed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenarios = root.join("../../static/scenarios");
    let fixtures = root.join("tests/fixtures/reports");
    let bless = std::env::var_os("FAIRGROUND_BLESS").is_some();
    let mut stems: Vec<String> = std::fs::read_dir(&scenarios)
        .expect("static/scenarios")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".json")).map(str::to_string))
        .filter(|s| s != "index")
        .collect();
    stems.sort();
    assert!(stems.len() > 10, "{stems:?}");
    let mut differ = Vec::new();
    for stem in &stems {
        let text = std::fs::read_to_string(scenarios.join(format!("{stem}.json"))).expect("read");
        let report = run_text(&text, &Limits::NATIVE).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let json = serde_json::to_string_pretty(&report).expect("serialises") + "\n";
        let path = fixtures.join(format!("{stem}.json"));
        if bless {
            std::fs::create_dir_all(&fixtures).expect("mkdir");
            std::fs::write(&path, &json).expect("write");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == json => {}
            Ok(_) => differ.push(format!("{stem}: report differs from {}", path.display())),
            Err(_) => differ.push(format!("{stem}: no committed report at {}", path.display())),
        }
    }
    assert!(differ.is_empty(), "{}\n(regenerate with FAIRGROUND_BLESS=1 only for an intended change)", differ.join("\n"));
}
