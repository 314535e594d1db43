//! Reports found by the published search index (`model::search`): a query's terms looked up in
//! their shards (one file each, fetched together, cached), the lists intersected, then the
//! summaries of the newest candidates read (one small file per few reports, fetched together)
//! until `SHOWN` pass the query's filters.

use crate::web;
use model::search::{self, Query, SearchIndex, SearchShard, SHOWN};
use model::{ReportPage, ReportSummary};
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// Candidates whose summaries are fetched together, a round at a time (newest first).
const ROUND: usize = SHOWN;
/// Candidates read at most for the filters of one query.
const READ_MAX: usize = 60;

/// What a query found: reports (ranked), how many the index lists for its terms, and the hints.
#[derive(Clone, Default)]
pub struct Found {
    pub query: String,
    pub reports: Vec<ReportSummary>,
    pub candidates: usize,
    pub hints: Vec<String>,
    /// What the query's prefixes ask, in words (`search::meaning`).
    pub meaning: Option<String>,
}

/// Files `paths` (each once, in order), their fetches started together.
async fn load_all<T>(paths: &[&str]) -> Result<Vec<Arc<T>>, String>
where
    T: DeserializeOwned + crate::data::Versioned + Send + Sync + 'static,
{
    let started: Vec<Option<js_sys::Promise>> =
        paths.iter().map(|p| if web::cached::<T>(p).is_some() { None } else { web::fetch_start(p) }).collect();
    let mut out = Vec::with_capacity(paths.len());
    for (p, s) in paths.iter().zip(started) {
        out.push(web::load_json_started::<T>(p, s).await?);
    }
    Ok(out)
}

/// Search `text` in the index of file `index` (fetched once, then cached).
pub async fn search_index(index: &str, text: &str) -> Result<Found, String> {
    let index: Arc<SearchIndex> = web::load_json(index).await?;
    let q: Query = search::parse(text);
    let mut found =
        Found { query: text.to_string(), hints: q.hints.clone(), meaning: search::meaning(text), ..Default::default() };
    let common = match index.common.as_str() {
        "" => Vec::new(),
        f => web::load_json::<search::CommonTerms>(f).await?.terms.clone(),
    };
    let terms = search::to_look_up(&q, &common);
    if terms.is_empty() {
        return Ok(found);
    }
    // each term's shard among the older reports and among the recent ones
    let files: Vec<(Option<String>, Option<String>)> =
        terms.iter().map(|t| (index.recent.shard(t), index.main.shard(t))).collect();
    let mut distinct: Vec<&str> = files.iter().flat_map(|(r, m)| r.iter().chain(m)).map(String::as_str).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let shards: Vec<Arc<SearchShard>> = load_all(&distinct).await?;
    let posting = |file: &Option<String>, term: &str| {
        let shard = &shards[distinct.binary_search(&file.as_deref()?).ok()?];
        shard.terms.binary_search_by(|p| p.term.as_str().cmp(term)).ok().map(|i| &shard.terms[i])
    };
    let mut lists = Vec::new();
    for (term, (new, old)) in terms.iter().zip(&files) {
        match search::joined(posting(new, term), posting(old, term), index.recent.reports) {
            Some(p) => lists.push(p),
            None => return Ok(found),
        }
    }
    let keys = search::intersect(&lists);
    found.candidates = keys.len();
    for round in keys.chunks(ROUND).take(READ_MAX / ROUND) {
        let places: Vec<(String, usize)> = round.iter().filter_map(|&k| index.summary_of(k)).collect();
        let mut distinct: Vec<&str> = places.iter().map(|(f, _)| f.as_str()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let pages: Vec<Arc<ReportPage>> = load_all(&distinct).await?;
        for (file, at) in &places {
            let page = distinct.binary_search(&file.as_str()).ok().and_then(|i| pages.get(i));
            if let Some(r) = page.and_then(|p| p.reports.get(*at)).filter(|r| search::passes(&q, r)) {
                found.reports.push(r.clone());
            }
        }
        if found.reports.len() >= SHOWN {
            break;
        }
    }
    found.reports.truncate(SHOWN);
    search::rank(&q, &mut found.reports);
    Ok(found)
}
