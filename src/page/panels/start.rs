//! The start page, shown on a first visit (no fragment) and from "Start here": the lessons as
//! cards, a one-click experiment ("does the clamp matter?": the wakeup clamp's A/B on
//! clamp-lesson), and every scenario by group. Links only: each opens through the fragment
//! like any other link, so the back button returns here.

use yew::prelude::*;

use crate::page::logic::{group_of, IndexEntry, GROUPS};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub entries: Vec<IndexEntry>,
}

/// The first sentence of a description, for a card.
fn first_sentence(d: &str) -> String {
    let d = d.split("\n\n").next().unwrap_or(d);
    match d.find(". ") {
        Some(i) => d[..=i].to_string(),
        None => d.to_string(),
    }
}

#[function_component(StartPage)]
pub fn start_page(p: &Props) -> Html {
    let lessons: Vec<&IndexEntry> = p.entries.iter().filter(|e| group_of(&e.stem) == 0).collect();
    html! {
        <section id="start" class="start" aria-label="Start here">
            <h2>{ "Start here" }</h2>
            <p class="hint">{ "Fairground runs the Linux fair scheduler (CFS, the latency-nice patches, EEVDF) in your browser, event by event. Begin with a lesson, or see one experiment answer a question from the mailing list." }</p>
            <div class="cards">
                { for lessons.iter().map(|e| html! {
                    <a class="card lesson-card" href={format!("#scenario={}&step=1", e.stem)} data-stem={e.stem.clone()}>
                        <strong>{ e.name.clone().unwrap_or_else(|| e.stem.clone()) }</strong>
                        <span>{ e.description.as_deref().map(first_sentence).unwrap_or_default() }</span>
                    </a>
                }) }
                <a class="card demo-card" id="demo-clamp" href="#scenario=clamp-lesson&ab=scheduler.features.latency_max_clamp_wakeup%3Dfalse">
                    <strong>{ "Does the clamp matter?" }</strong>
                    <span>{ "One click: the v12 wakeup clamp on (A) and off (B) on the same workload, and what changes: preemptions, latencies, and where the two runs part." }</span>
                </a>
            </div>
            <div class="groups">
                { for GROUPS.iter().enumerate().skip(1).map(|(g, label)| html! {
                    <div>
                        <h3>{ *label }</h3>
                        <ul>
                            { for p.entries.iter().filter(|e| group_of(&e.stem) == g).map(|e| html! {
                                <li><a href={format!("#scenario={}", e.stem)}>{ e.name.clone().unwrap_or_else(|| e.stem.clone()) }</a></li>
                            }) }
                        </ul>
                    </div>
                }) }
                <div>
                    <h3>{ "Exercises" }</h3>
                    <ul>
                        <li><a href="#exercise=cfs-pick&seed=1">{ "Which task does CFS pick next?" }</a></li>
                        <li><a href="#exercise=wakeup-clamp&seed=1">{ "Does the waker preempt, with or without the clamp?" }</a></li>
                        <li><a href="#exercise=eevdf-eligibility&seed=1">{ "Is this task eligible under EEVDF?" }</a></li>
                    </ul>
                </div>
            </div>
        </section>
    }
}
