//! The record of any row of a report, on demand (`reports::record`): a metric of the report
//! chosen, the testcase's catalog with its rest (its reports; not its metric names) and the
//! metric's trend chunk (found by its name's bucket), the record drawn by `render::record`. Reached through a split point
//! (`ui::split::row_record`, which gives it the catalogs' loader): the first screen does not carry it.

use crate::catalog::Catalog;
use crate::reports::record;
use crate::ui::context::Nav;
use crate::web;
use leptos::prelude::*;
use model::{ReportDoc, ReportSummary, SeriesShard};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// How the record loads a testcase's catalog with its rest (`ui::split` gives its loader).
pub type LoadCatalog = fn(String) -> Pin<Box<dyn Future<Output = Result<Arc<Catalog>, String>>>>;

/// The record of `metric` in the other reports of `testcase`, seen from report `doc`, as HTML.
async fn record_of(doc: Arc<ReportDoc>, testcase: String, metric: String, load: LoadCatalog) -> Result<String, String> {
    let rows = record::row_changes(&doc);
    let Some(row) = rows.iter().find(|r| r.metric == metric) else {
        return Err(format!("this report states no change of {metric}"));
    };
    let cat = load(testcase.clone()).await?;
    // the catalog's metric names are not loaded: the row's direction is the document's
    let weight = if row.weight != 0 { row.weight } else { cat.direction(&metric) };
    let part = cat.parts.get(&testcase).ok_or_else(|| format!("the catalog of {testcase} did not load"))?;
    let chunk = part.chunk_of(&metric).ok_or_else(|| format!("{testcase}'s catalog does not list {metric}"))?;
    let (series, _) =
        web::load_series(cat.clone(), vec![(testcase.clone(), chunk.to_string())], metric.clone()).await?;
    let me =
        record::as_row(&doc, &metric, weight).ok_or_else(|| format!("this report states no change of {metric}"))?;
    let shards: Vec<&SeriesShard> = series.iter().map(|s| &**s).collect();
    let others = record::others(&cat, &shards, &testcase, &metric, weight, &doc.id);
    let others: Vec<&ReportSummary> = others.iter().collect();
    Ok(render::record::record_html(&me, &others, &[]).into_string())
}

/// A metric of the report's rows to choose (a list to type into, largest |change| first; the
/// address keeps it, `row=`), and its record once chosen: "loading…" while its files come, why
/// not when they cannot (a `row=` this report has no row of included).
#[component]
pub fn RowRecord(doc: Arc<ReportDoc>, load: LoadCatalog) -> impl IntoView {
    let rows = record::row_changes(&doc);
    let testcase = ReportSummary::of(&doc).testcases.into_iter().next().unwrap_or_default();
    let metrics: Vec<String> = rows.into_iter().map(|r| r.metric).collect();
    // the row the address names (`row=`), kept there when another is chosen
    let nav = expect_context::<Nav>();
    let chosen = RwSignal::new(nav.state.with_untracked(|s| s.row.clone()));
    let known = metrics.clone();
    let on_change = move |ev: leptos::ev::Event| {
        let m = Some(event_target_value(&ev)).filter(|m| known.contains(m));
        chosen.set(m.clone());
        nav.replace(|s| s.row = m);
    };
    let value = chosen.get_untracked().unwrap_or_default();
    // the answer names its metric: a resource keeps its last value while the next one loads
    let got = LocalResource::new(move || {
        let (doc, testcase, metric) = (doc.clone(), testcase.clone(), chosen.get());
        async move {
            match metric {
                Some(m) => Some((m.clone(), record_of(doc, testcase, m, load).await)),
                None => None,
            }
        }
    });
    let shown = move || {
        let m = chosen.get()?;
        let view = match got.get().flatten().filter(|(of, _)| *of == m) {
            None => view! { <p class="status">{format!("loading the record of {m}…")}</p> }.into_any(),
            Some((_, Ok(html))) => view! { <div data-testid="row-record" inner_html=html></div> }.into_any(),
            Some((_, Err(e))) => {
                view! { <p class="hint" data-testid="record-error">{format!("The row's record: {e}")}</p> }.into_any()
            }
        };
        Some(view)
    };
    view! {
        <div class="row-record">
            <label>
                "The record of another of its rows: "
                <input list="row-metrics" name="row-metric" data-testid="row-record-input" placeholder="a metric of this report" value=value on:change=on_change />
            </label>
            <datalist id="row-metrics">{metrics.into_iter().map(|m| view! { <option value=m></option> }).collect_view()}</datalist>
            {shown}
        </div>
    }
}
