//! The one place where the app runs a scenario. It runs on the main thread for now; a later
//! issue moves this call into a Web Worker, and only this module should have to change.

use fairground_sim::{run_text, Limits, Report};

/// Parse, validate, cost-check and run a scenario's JSON(C) text within the browser's limits.
/// Every refusal comes back as a readable message (the `ScenarioError`, which names the JSON
/// path). A panic in the engine does too where the target can unwind (natively); in wasm it
/// aborts, and the panic hook installed by the app shows it on the page instead.
pub fn run(text: &str) -> Result<Report, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_text(text, &Limits::BROWSER))) {
        Ok(Ok(report)) => Ok(report),
        Ok(Err(e)) => Err(e.to_string()),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(format!("internal error in the simulator: {msg}"))
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn invalid_input_is_an_error_message() {
        let e = super::run("{ not json").unwrap_err();
        assert!(!e.is_empty());
    }
}
