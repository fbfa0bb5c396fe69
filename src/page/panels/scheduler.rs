//! The scheduler panel: the policy, the tunables and every feature of contract §1.2 with a
//! one-line explanation (`wire::settings`). A component of its own with stable callbacks, so
//! that it re-renders only when the scenario changes. Changes go into the scenario's text.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::wire::settings::{self, Kind, FEATURES, POLICIES, SCALINGS, TUNABLES};

#[derive(Properties, PartialEq)]
pub struct SchedProps {
    /// The scenario as JSON.
    pub text: Option<String>,
    pub error: Option<String>,
    pub warnings: Vec<String>,
    pub on_policy: Callback<String>,
    /// (section, key, value; None = back to the default)
    pub on_setting: Callback<(&'static str, &'static str, Option<serde_json::Value>)>,
    /// The feature a lesson step asks the class to switch: the panel shows even in presenter
    /// mode, and that switch is marked.
    #[prop_or_default]
    pub staged: Option<String>,
}

/// Policy, tunables and every feature of contract §1.2 with a one-line explanation. Changes go
/// into the scenario, which is then run again up to the current time.
#[function_component(SchedPanel)]
pub fn sched_panel(props: &SchedProps) -> Html {
        let Some(doc) = props.text.as_deref().and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok()) else {
            return html! {};
        };
        let policy = settings::policy(&doc);
        let pi = settings::policy_index(&policy);
        let on_policy = props.on_policy.reform(|e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            s.value()
        });
        let scaling = settings::get(&doc, "tunables", "tunable_scaling").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_else(|| "log".into());
        html! {
            <aside id="sched-panel" class={classes!("sched-panel", props.staged.is_some().then_some("staged"))}>
                <h3>{ "Scheduler" }</h3>
                <label for="policy-select">{ "Policy" }</label>
                <select id="policy-select" onchange={on_policy}>
                    { for POLICIES.iter().zip(settings::POLICY_SUMMARIES).map(|(p, what)| html! { <option value={*p} title={what} selected={*p == policy}>{ *p }</option> }) }
                </select>
                <p id="policy-summary" class="what">{ settings::POLICY_SUMMARIES[pi] }</p>
                if let Some(e) = &props.error {
                    <p id="sched-error" class="error" role="alert">{ e }</p>
                }
                if !props.warnings.is_empty() {
                    <ul class="warnings">{ for props.warnings.iter().map(|w| html! { <li>{ w }</li> }) }</ul>
                }
                <h4>{ "Tunables (normalized, 1-CPU values)" }</h4>
                { for TUNABLES.iter().map(|t| {
                    let cur = settings::get(&doc, "tunables", t.key).and_then(|v| v.as_u64());
                    let used = t.defaults[pi].is_some();
                    let key = t.key;
                    let onchange = props.on_setting.reform(move |e: Event| {
                        let i: HtmlInputElement = e.target_unchecked_into();
                        let v = i.value();
                        ("tunables", key, if v.trim().is_empty() { None } else { Some(v.trim().parse::<u64>().map(serde_json::Value::from).unwrap_or(serde_json::Value::String(v))) })
                    });
                    html! {
                        <div class={classes!("knob", (!used).then_some("unused"))}>
                            <label for={format!("tun-{key}")}><code>{ key }</code></label>
                            <input id={format!("tun-{key}")} type="number" min="0" placeholder={t.defaults[pi].map(|d| d.to_string()).unwrap_or_else(|| "not used".into())}
                                value={cur.map(|c| c.to_string()).unwrap_or_default()} {onchange} />
                            <p class="what">{ t.what }</p>
                        </div>
                    }
                }) }
                <div class="knob">
                    <label for="tun-tunable_scaling"><code>{ "tunable_scaling" }</code></label>
                    <select id="tun-tunable_scaling" onchange={props.on_setting.reform(|e: Event| {
                        let s: HtmlSelectElement = e.target_unchecked_into();
                        ("tunables", "tunable_scaling", Some(serde_json::Value::String(s.value())))
                    })}>
                        { for SCALINGS.iter().map(|s| html! { <option value={*s} selected={*s == scaling}>{ *s }</option> }) }
                    </select>
                    <p class="what">{ "How tunables grow with the CPU count: ×1, ×min(cpus, 8) or ×(1 + ilog2(min(cpus, 8)))." }</p>
                </div>
                <h4>{ "Features" }</h4>
                { for FEATURES.iter().map(|f| {
                    let key = f.key;
                    let default = f.defaults[pi];
                    let cur = settings::get(&doc, "features", key);
                    let shown = cur.as_ref().map(|v| match v { serde_json::Value::String(s) => s.clone(), v => v.to_string() })
                        .or(default.map(str::to_string)).unwrap_or_else(|| "false".into());
                    let control = match f.kind {
                        Kind::Bool => html! {
                            <input id={format!("feat-{key}")} type="checkbox" checked={shown == "true"}
                                onchange={props.on_setting.reform(move |e: Event| {
                                    let i: HtmlInputElement = e.target_unchecked_into();
                                    ("features", key, Some(serde_json::Value::Bool(i.checked())))
                                })} />
                        },
                        Kind::Choice(opts) => html! {
                            <select id={format!("feat-{key}")} onchange={props.on_setting.reform(move |e: Event| {
                                let s: HtmlSelectElement = e.target_unchecked_into();
                                ("features", key, Some(serde_json::Value::String(s.value())))
                            })}>
                                { for opts.iter().map(|o| html! { <option value={*o} selected={*o == shown}>{ *o }</option> }) }
                            </select>
                        },
                    };
                    let explicit = cur.is_some();
                    html! {
                        <div class={classes!("knob", default.is_none().then_some("unused"), (props.staged.as_deref() == Some(key)).then_some("staged"))} data-feature={key}>
                            { control }
                            <label for={format!("feat-{key}")}><code>{ key }</code></label>
                            if default.is_none() {
                                <span class="tag">{ format!("not in {policy}") }</span>
                            }
                            if explicit {
                                <button class="ghost small" title="Back to the policy's default"
                                    onclick={props.on_setting.reform(move |_: MouseEvent| ("features", key, None))}>{ "default" }</button>
                            }
                            <p class="what">{ f.what }</p>
                        </div>
                    }
                }) }
            </aside>
        }
    }
