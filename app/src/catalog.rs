//! The loaded index with lookups by stable key, plus what needs both the index and the view
//! state: checking a parsed state against the data (`resolve`) and the first screen (`defaults`).

use crate::state::{FacetKey, Tab, ViewState};
use model::{Index, Job, MetricInfo};
use std::collections::{BTreeSet, HashMap};

/// The loaded testcase catalogs merged into one `Index`, plus maps from stable keys to positions,
/// the root, and per loaded testcase how to read its files (`Part`).
#[derive(Debug, Clone)]
pub struct Catalog {
    pub index: Index,
    pub root: std::sync::Arc<model::Root>,
    pub parts: std::collections::BTreeMap<String, model::assemble::Part>,
    metric_pos: HashMap<String, usize>,
    job_pos: HashMap<String, usize>,
    commit_pos: HashMap<String, usize>,
    report_pos: HashMap<String, usize>,
    testcase_pos: HashMap<String, usize>,
}

impl Catalog {
    /// The merged view of the catalogs loaded under `root`.
    pub fn assembled(root: std::sync::Arc<model::Root>, a: model::assemble::Assembled) -> Catalog {
        Catalog { root, ..Catalog::with_parts(a.index, a.parts) }
    }

    /// Testcases whose catalog is not loaded, with their job counts (the root's).
    pub fn unloaded(&self) -> Vec<(String, usize)> {
        self.root
            .testcases
            .iter()
            .filter(|t| !self.parts.contains_key(&t.name))
            .map(|t| (t.name.clone(), t.jobs))
            .collect()
    }

    /// The testcases a state needs loaded that are not: its selected testcases, or every
    /// testcase when none is selected (but views that need no catalog then need none).
    pub fn missing_for(&self, s: &ViewState) -> Vec<String> {
        let selected: Vec<&String> = s.selected(&FacetKey::Testcase).collect();
        if needs_no_catalog(s) {
            return vec![];
        }
        self.root
            .testcases
            .iter()
            .map(|t| &t.name)
            .filter(|t| (selected.is_empty() || selected.contains(t)) && !self.parts.contains_key(*t))
            .cloned()
            .collect()
    }

    /// A loaded catalog's rest is not (`Index::rest`): its reports are pending, its metrics
    /// only the first charts'. (The app loads a catalog's rest and names together, `split::Parts`;
    /// only the record of a row makes a catalog of its rest alone, for itself.)
    pub fn is_pending(&self) -> bool {
        self.parts.values().any(|p| p.pending)
    }

    /// Every loaded catalog is whole: its rest and its names are in (`is_pending` says the rest).
    pub fn is_whole(&self) -> bool {
        self.parts.values().all(|p| !p.pending && !p.names_pending)
    }

    /// State `s` needs what the loaded catalogs' rests hold: a view other than the first chart,
    /// or a metric the loaded halves do not list.
    pub fn needs_rest(&self, s: &ViewState) -> bool {
        self.is_pending() && (!first_halves_enough(s) || s.metric.as_deref().is_some_and(|m| self.metric(m).is_none()))
    }

    /// Whether catalogs loaded for `s` are loaded whole: once the page has any whole, or when `s`
    /// shows more than a chart.
    pub fn load_whole(&self, s: &ViewState) -> bool {
        (!self.parts.is_empty() && !self.is_pending()) || !first_halves_enough(s)
    }

    /// A catalog of one index with no files behind it (tests).
    pub fn new(index: Index) -> Catalog {
        let parts = index
            .testcases
            .iter()
            .map(|t| (t.name.clone(), model::assemble::Part::identity(&t.name, &index)))
            .collect();
        Catalog::with_parts(index, parts)
    }

    /// The lookups of `index`, whose files `parts` read. (Only the parts a view reads are made:
    /// a part names every metric of its catalog, so one per testcase of a big merged index cost
    /// 0.8 s natively for fio-basic at 10^4 mails.)
    fn with_parts(index: Index, parts: std::collections::BTreeMap<String, model::assemble::Part>) -> Catalog {
        fn map<T>(xs: &[T], key: impl Fn(&T) -> &str) -> HashMap<String, usize> {
            xs.iter().enumerate().map(|(i, x)| (key(x).to_string(), i)).collect()
        }
        Catalog {
            root: Default::default(),
            parts,
            metric_pos: map(&index.metrics, |m| &m.name),
            job_pos: map(&index.jobs, |j| &j.id),
            commit_pos: map(&index.commits, |c| &c.id),
            report_pos: map(&index.reports, |r| &r.id).into_iter().filter(|(id, _)| !id.is_empty()).collect(),
            testcase_pos: map(&index.testcases, |t| &t.name),
            index,
        }
    }

    pub fn metric(&self, name: &str) -> Option<&MetricInfo> {
        self.metric_pos.get(name).map(|&i| &self.index.metrics[i])
    }

    /// Direction weight of a metric (0 when unknown).
    pub fn direction(&self, name: &str) -> i8 {
        self.metric(name).map_or(0, |m| m.direction)
    }

    pub fn job_pos(&self, id: &str) -> Option<usize> {
        self.job_pos.get(id).copied()
    }

    pub fn job(&self, id: &str) -> Option<&Job> {
        self.job_pos(id).map(|i| &self.index.jobs[i])
    }

    pub fn report_pos(&self, id: &str) -> Option<usize> {
        self.report_pos.get(id).copied()
    }

    pub fn testcase(&self, name: &str) -> Option<&model::TestcaseInfo> {
        self.testcase_pos.get(name).map(|&i| &self.index.testcases[i])
    }

    /// Position of a commit by full id, or by a unique prefix of at least 7 characters.
    pub fn commit_pos(&self, id: &str) -> Option<usize> {
        if let Some(&i) = self.commit_pos.get(id) {
            return Some(i);
        }
        if id.len() < 7 {
            return None;
        }
        let mut hits = self.index.commits.iter().enumerate().filter(|(_, c)| c.id.starts_with(id));
        match (hits.next(), hits.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    }

    /// Whether `testcase` measured `metric` (its shard exists).
    pub fn testcase_has_metric(&self, testcase: &str, metric: &str) -> bool {
        match (self.testcase(testcase), self.metric_pos.get(metric)) {
            (Some(t), Some(&m)) => t.metrics.contains(&(m as u32)),
            _ => false,
        }
    }

    /// Reports (positions) having a section with `commit`, optionally only for `job`.
    pub fn reports_of_commit(&self, commit: usize, job: Option<usize>) -> Vec<usize> {
        self.index
            .reports
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.sections
                    .iter()
                    .any(|s| s.commits.contains(&(commit as u32)) && job.is_none_or(|j| s.job == Some(j as u32)))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// One line naming a job: testcase, machine and every parameter.
    pub fn describe_job(job: &Job) -> String {
        let mut s = job.testcase.clone();
        if !job.machine.is_empty() {
            s.push_str(" · ");
            s.push_str(&job.machine);
        }
        for (k, v) in &job.params {
            s.push_str(&format!(" {k}={v}"));
        }
        s
    }
}

/// State `s` is shown from the root and report documents alone: the reports list, and the
/// Changes view with no testcase chosen (the root's newest headlines).
pub fn needs_no_catalog(s: &ViewState) -> bool {
    s.selected(&FacetKey::Testcase).next().is_none() && matches!(s.tab, Tab::Reports | Tab::Changes)
}

/// The testcases to load first for state `s` (the page's URL) under `root`: the selected ones;
/// none for a view that needs no catalog; for the trend or compare of nothing, the newest report's
/// testcase (`defaults` shows its headline); else every testcase.
pub fn first_testcases(root: &model::Root, s: &ViewState) -> Vec<String> {
    let selected: Vec<String> = s.selected(&FacetKey::Testcase).cloned().collect();
    if !selected.is_empty() {
        return selected;
    }
    if needs_no_catalog(s) {
        return vec![];
    }
    if shows_the_newest(s) {
        if let Some(tc) = newest_testcase(root) {
            return vec![tc.to_string()];
        }
    }
    root.testcases.iter().map(|t| t.name.clone()).collect()
}

/// The trend or compare tab and nothing else chosen: the newest headline is shown (`defaults`),
/// its trend or its job's base against head.
pub fn shows_the_newest(s: &ViewState) -> bool {
    matches!(s.tab, Tab::Trend | Tab::Compare) && s.chooses_nothing()
}

/// The testcase of the newest report (the root's newest list).
fn newest_testcase(root: &model::Root) -> Option<&String> {
    root.newest.first().and_then(|r| r.testcases.first())
}

/// What the catalogs' first halves (`Index::rest`) are enough for, their rests following after the
/// first paint: a trend chart of a metric, or the Changes of chosen testcases (a row's report is a
/// position, its link and notes come with the rest), with no commit or report open.
pub fn first_halves_enough(s: &ViewState) -> bool {
    let shown = match s.tab {
        Tab::Trend => s.metric.is_some(),
        Tab::Changes => s.selected(&FacetKey::Testcase).next().is_some(),
        _ => false,
    };
    shown && s.commit.is_none() && s.report.is_none() && s.open.is_none()
}

/// Check a parsed state against the data: names that do not exist are dropped with a notice,
/// commit prefixes are completed to full ids.
pub fn resolve(cat: &Catalog, mut s: ViewState) -> (ViewState, Vec<String>) {
    let mut notices = Vec::new();
    let idx = &cat.index;
    let facet_keys: BTreeSet<FacetKey> = s.facets.keys().cloned().collect();
    for key in facet_keys {
        let mut known: BTreeSet<&str> = idx.jobs.iter().filter_map(|j| facet_value(&key, j)).collect();
        if key == FacetKey::Testcase {
            // testcases whose catalog is still to be loaded are known by the root
            known.extend(cat.root.testcases.iter().map(|t| t.name.as_str()));
        }
        let known_key = match &key {
            FacetKey::Param(k) => idx.jobs.iter().any(|j| j.params.contains_key(k)),
            _ => true,
        };
        let set = s.facets.get_mut(&key).expect("key from the map");
        if !known_key {
            notices.push(format!("no job has parameter `{}`: filter dropped", key.name()));
            s.facets.remove(&key);
            continue;
        }
        let unknown: Vec<String> =
            set.iter().filter(|v| !known.contains(v.as_str()) && !v.is_empty()).cloned().collect();
        for v in unknown {
            notices.push(format!("no job has {} = `{v}`: dropped", key.name()));
            set.remove(&v);
        }
        if set.is_empty() {
            s.facets.remove(&key);
        }
    }
    if let Some(m) = &s.metric {
        // a metric the loaded halves do not list may be in their names: they are loaded for it
        if cat.metric(m).is_none() && !cat.is_pending() {
            notices.push(format!("unknown metric `{m}` dropped"));
            s.metric = None;
        }
    }
    let unknown_jobs: Vec<String> = s.jobs.iter().filter(|j| cat.job(j).is_none()).cloned().collect();
    for j in unknown_jobs {
        notices.push(format!("unknown job `{j}` dropped"));
        s.jobs.remove(&j);
    }
    if let Some(j) = &s.job {
        if cat.job(j).is_none() {
            notices.push(format!("unknown job `{j}` dropped"));
            s.job = None;
        }
    }
    if let Some(r) = &s.report {
        if cat.report_pos(r).is_none() && !cat.is_pending() {
            notices.push(format!("unknown report `{r}` dropped"));
            s.report = None;
        }
    }
    for (name, slot) in [
        ("from", &mut s.from),
        ("to", &mut s.to),
        ("commit", &mut s.commit),
        ("base", &mut s.base),
        ("head", &mut s.head),
    ] {
        if let Some(id) = slot.as_deref() {
            match cat.commit_pos(id) {
                Some(i) => *slot = Some(idx.commits[i].id.clone()),
                None => {
                    notices.push(format!("unknown commit `{id}` for `{name}` dropped"));
                    *slot = None;
                }
            }
        }
    }
    (s, notices)
}

/// The state a page URL asks for: the first screen (the reports list) when the query says nothing
/// usable, the newest headline's trend (`defaults`) for a trend of nothing,
/// else the parsed query checked against the data. Notices name what was dropped.
pub fn from_query(cat: &Catalog, query: &str) -> (ViewState, Vec<String>) {
    let (parsed, mut notices) = ViewState::parse(query);
    if parsed == ViewState::default() {
        return (parsed, notices);
    }
    let (mut s, more) = resolve(cat, parsed);
    notices.extend(more);
    forget_outside(cat, &mut s);
    // The trend (or compare) of nothing: the newest headline's.
    if shows_the_newest(&s) {
        return (ViewState { tab: s.tab, ..defaults(cat) }, notices);
    }
    (s, notices)
}

/// A selected commit or report of no selected testcase is forgotten (the commit panel would show
/// another testcase's commit, and the permalink would name what a reload cannot load). Only
/// decided when every selected testcase is loaded whole.
pub fn forget_outside(cat: &Catalog, s: &mut ViewState) {
    let selected: BTreeSet<String> = s.selected(&FacetKey::Testcase).cloned().collect();
    if selected.is_empty() || selected.iter().any(|t| !cat.parts.contains_key(t)) || cat.is_pending() {
        return;
    }
    let idx = &cat.index;
    let in_scope = |r: &model::ReportMeta| {
        r.sections
            .iter()
            .any(|sec| sec.job.and_then(|j| idx.jobs.get(j as usize)).is_some_and(|j| selected.contains(&j.testcase)))
    };
    if s.report.as_deref().is_some_and(|id| cat.report_pos(id).is_none_or(|r| !in_scope(&idx.reports[r]))) {
        s.report = None;
    }
    if let Some(c) = s.commit.as_deref().and_then(|c| cat.commit_pos(c)) {
        let measured = idx
            .reports
            .iter()
            .filter(|r| in_scope(r))
            .any(|r| r.sections.iter().any(|sec| sec.commits.contains(&(c as u32))));
        if !measured {
            s.commit = None;
        }
    }
}

/// The value a job has for a facet; `Some("")` when the job lacks that parameter.
pub fn facet_value<'a>(key: &FacetKey, job: &'a Job) -> Option<&'a str> {
    Some(match key {
        FacetKey::Testcase => &job.testcase,
        FacetKey::Machine => &job.machine,
        FacetKey::Param(k) => job.params.get(k).map_or("", |v| v.as_str()),
    })
}

/// The first screen when the URL says nothing: the headline metric of the most recent report,
/// for its job, with the reported commit selected (so its link is visible).
pub fn defaults(cat: &Catalog) -> ViewState {
    let idx = &cat.index;
    let mut s = ViewState::default();
    let headline = idx.headlines.iter().find(|h| h.job.is_some()).or(idx.headlines.first());
    let Some(h) = headline else {
        // No catalog loaded (the first screen loads none): the newest report's headline metric.
        let newest = cat.root.newest.first().and_then(|r| Some((r.testcases.first()?, r.metric.as_ref()?)));
        if let Some((tc, m)) = newest {
            s.facets.insert(FacetKey::Testcase, [tc.clone()].into());
            s.metric = Some(m.clone());
            s.tab = Tab::Trend;
            return s;
        }
        // No headline at all: fall back to the first testcase's first KPI.
        if let Some(t) = idx.testcases.first() {
            s.facets.insert(FacetKey::Testcase, [t.name.clone()].into());
            s.metric = t.headline_metrics.first().cloned().or_else(|| {
                t.metrics.iter().map(|&m| &idx.metrics[m as usize]).find(|m| m.kpi).map(|m| m.name.clone())
            });
        }
        return s;
    };
    s.facets.insert(FacetKey::Testcase, [h.testcase.clone()].into());
    if cat.metric(&h.metric).is_some() {
        s.metric = Some(h.metric.clone());
    }
    if let Some(j) = h.job.and_then(|j| idx.jobs.get(j as usize)) {
        s.jobs.insert(j.id.clone());
        s.job = Some(j.id.clone());
    }
    if let Some(head) = h.head.and_then(|c| idx.commits.get(c as usize)) {
        s.commit = Some(head.id.clone());
    }
    if let Some(r) = idx.reports.get(h.report as usize).filter(|r| !r.is_pending()) {
        s.report = Some(r.id.clone());
    }
    s.tab = Tab::Trend;
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use model::{Commit, Headline, Params, ReportMeta, SectionMeta, TestcaseInfo};

    /// The sample's blogbench catalog as published: its first half only (`Index::rest`), with
    /// one metric and its one report pending.
    fn first_half() -> Catalog {
        let mut c = sample_index();
        c.testcases.truncate(1);
        c.jobs.truncate(2);
        c.metrics.retain(|m| m.name == "blogbench.write_score");
        c.reports.clear();
        c.headlines.clear();
        c.totals.reports = 1;
        c.rest = Some("t/blogbench/0123.json".into());
        let root = model::Root {
            schema: model::SCHEMA_VERSION,
            testcases: vec![model::TestcaseEntry { name: "blogbench".into(), ..Default::default() }],
            ..Default::default()
        };
        let a = model::assemble::merge(&root, &[("t/blogbench.json".into(), c)]).unwrap();
        Catalog::assembled(std::sync::Arc::new(root), a)
    }

    #[test]
    fn a_first_half_draws_a_chart_and_keeps_what_only_its_rest_knows() {
        let cat = first_half();
        assert!(cat.is_pending());
        let (s, notes) = from_query(&cat, "view=trend&testcase=blogbench&metric=blogbench.write_score");
        assert!(notes.is_empty(), "{notes:?}");
        assert!(first_halves_enough(&s) && !cat.needs_rest(&s) && !cat.load_whole(&s));
        // a metric and a report only the rest lists are kept, and the rest is loaded for them
        let (s, notes) = from_query(&cat, "view=trend&testcase=blogbench&metric=vmstat.system.cs&rid=r1");
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!((s.metric.as_deref(), s.report.as_deref()), (Some("vmstat.system.cs"), Some("r1")));
        assert!(cat.needs_rest(&s));
        let (s, _) = from_query(&cat, "view=trend&testcase=blogbench&metric=vmstat.system.cs");
        assert!(cat.needs_rest(&s), "a metric the first half does not list");
        // a pending report is never selected: it has no id yet
        assert!(cat.index.reports.iter().all(|r| r.is_pending()) && cat.report_pos("").is_none());
        // a commit chosen or another view needs the rest
        let (mut s, _) = from_query(&cat, "view=trend&testcase=blogbench&metric=blogbench.write_score");
        s.commit = Some(cat.index.commits[0].id.clone());
        assert!(cat.needs_rest(&s) && cat.load_whole(&s));
        s.commit = None;
        s.tab = Tab::Compare;
        assert!(cat.needs_rest(&s));
        // the Changes of a chosen testcase list from the first half, of none need no catalog
        s.tab = Tab::Changes;
        assert!(first_halves_enough(&s) && !cat.needs_rest(&s) && !cat.load_whole(&s));
        // a row's pending report is not named (it has no id yet); its commit and job are
        let r = model::ChangeRecord { report: Some(0), ..Default::default() };
        crate::changes::open_reproduce(&cat, &mut s, &r);
        assert_eq!((s.commit.is_some(), s.job.is_some(), s.report.as_deref()), (true, true, None));
        s.facets.clear();
        assert!(!first_halves_enough(&s));
        // a whole catalog drops what it does not know, and needs nothing more
        let whole = Catalog::new(sample_index());
        let (s, notes) = from_query(&whole, "view=trend&testcase=blogbench&metric=nope.metric&rid=r9");
        assert_eq!((s.metric.as_deref(), s.report.as_deref()), (None, None));
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(!whole.is_pending() && !whole.needs_rest(&s));
    }

    #[test]
    fn views_of_no_testcase_load_only_the_catalogs_they_show() {
        let summary =
            |tc: &str| model::ReportSummary { id: "r".into(), testcases: vec![tc.into()], ..Default::default() };
        let root = model::Root {
            testcases: ["aim7", "fsmark", "will-it-scale"]
                .map(|t| model::TestcaseEntry { name: t.into(), ..Default::default() })
                .into(),
            newest: vec![summary("fsmark"), summary("aim7")],
            ..Default::default()
        };
        let first = |q: &str| first_testcases(&root, &ViewState::parse(q).0);
        let all = ["aim7", "fsmark", "will-it-scale"].map(String::from).to_vec();
        // the first screen and the newest headlines: the root is enough
        assert!(first("").is_empty() && first("view=reports").is_empty());
        assert!(first("view=changes").is_empty() && first("view=changes&p.fs=xfs").is_empty());
        // the trend or compare of nothing shows the newest report's testcase: only its catalog
        assert_eq!(first("view=trend"), ["fsmark"]);
        assert_eq!(first("view=compare"), ["fsmark"]);
        // a testcase chosen: that one; a view of every testcase (a filter, a job): all of them
        assert_eq!(first("view=changes&testcase=aim7"), ["aim7"]);
        assert_eq!(first("view=trend&p.fs=xfs"), all);
        assert_eq!(first("view=compare&job=0123456789abcdef"), all);
        // a tab switched to Changes with no testcase loads nothing more
        let cat = Catalog::assembled(std::sync::Arc::new(root.clone()), model::assemble::merge(&root, &[]).unwrap());
        assert!(cat.missing_for(&ViewState::parse("view=changes").0).is_empty());
        assert_eq!(cat.missing_for(&ViewState::parse("view=compare&p.fs=xfs").0), all);
    }

    /// A small index shaped like real imports: two testcases, three jobs, three commits.
    pub fn sample_index() -> Index {
        let job = |tc: &str, m: &str, p: &[(&str, &str)]| {
            let params: Params = p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            Job {
                id: model::job_id(tc, m, &params),
                testcase: tc.into(),
                machine: m.into(),
                params,
                script: None,
                shard: String::new(),
                report: None,
            }
        };
        let mut jobs = vec![
            job("blogbench", "lkp-icl-2sp9", &[("fs", "xfs"), ("disk", "1SSD")]),
            job("blogbench", "lkp-icl-2sp9", &[("fs", "ext4"), ("disk", "1SSD")]),
            job("fio-basic", "lkp-csl-2sp3", &[("fs", "xfs"), ("disk", "1HDD"), ("rw", "write")]),
        ];
        jobs[0].script = Some("00ff".into());
        let metric = |n: &str, d: i8, kpi: bool| MetricInfo {
            name: n.into(),
            direction: d,
            kpi,
            fail: false,
            chunk: 0,
            series: 1,
        };
        let metrics = vec![
            metric("blogbench.read_score", 1, true),
            metric("blogbench.write_score", 1, true),
            metric("fio.write_bw_MBps", 1, true),
            metric("mpstat.cpu.all.idle%", 0, false),
            metric("vmstat.system.cs", 0, false),
        ];
        let commit = |id: &str, subj: &str| Commit {
            id: id.into(),
            subject: Some(subj.into()),
            url: Some(format!("https://git.kernel.org/torvalds/c/{id}")),
            ..Default::default()
        };
        Index {
            schema: model::SCHEMA_VERSION,
            generation: String::new(),
            commits: vec![
                commit("4df0f7f145aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "base"),
                commit("19957a1816bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "head"),
                commit("v6.16-rc4", "tag"),
            ],
            reports: vec![ReportMeta {
                id: "r1".into(),
                subject: Some("[linux-next:master] [xfs] 19957a1816: blogbench.write_score 5.2% improvement".into()),
                url: Some("https://lore.kernel.org/all/x@intel.com/".into()),
                sections: vec![SectionMeta { job: Some(0), commits: vec![0, 1], rows: 10, machine: None }],
                ..Default::default()
            }],
            jobs,
            metrics,
            testcases: vec![
                TestcaseInfo {
                    name: "blogbench".into(),
                    jobs: vec![0, 1],
                    metrics: vec![0, 1, 3, 4],
                    headline_metrics: vec!["blogbench.write_score".into()],
                    detected: 0,
                    loaded: true,
                },
                TestcaseInfo {
                    name: "fio-basic".into(),
                    jobs: vec![2],
                    metrics: vec![2, 3],
                    headline_metrics: vec![],
                    detected: 0,
                    loaded: true,
                },
            ],
            headlines: vec![Headline {
                report: 0,
                job: Some(0),
                testcase: "blogbench".into(),
                metric: "blogbench.write_score".into(),
                change: Some(5.2),
                word: "improvement".into(),
                base: Some(0),
                head: Some(1),
            }],
            totals: Default::default(),
            chunks: vec!["s/x/0.json".into()],
            changes: vec![],
            rest: None,
            names: None,
            chunk_keys: vec![],
            quiet: vec![],
        }
    }

    #[test]
    fn a_commit_and_report_of_no_selected_testcase_are_forgotten() {
        let cat = Catalog::new(sample_index());
        let (s, _) = from_query(&cat, "testcase=blogbench&commit=19957a1816&rid=r1");
        assert_eq!((s.commit.as_deref().map(|c| &c[..10]), s.report.as_deref()), (Some("19957a1816"), Some("r1")));
        let (s, _) = from_query(&cat, "testcase=fio-basic&commit=19957a1816&rid=r1");
        assert_eq!((s.commit.as_deref(), s.report.as_deref()), (None, None), "r1 measured blogbench only");
        // a selected testcase not loaded yet: nothing is decided
        let mut cat = cat;
        cat.parts.remove("fio-basic");
        let (s, _) = from_query(&cat, "testcase=fio-basic&commit=19957a1816&rid=r1");
        assert_eq!(s.report.as_deref(), Some("r1"));
    }

    #[test]
    fn defaults_show_the_newest_headline() {
        let cat = Catalog::new(sample_index());
        let s = defaults(&cat);
        assert_eq!(s.metric.as_deref(), Some("blogbench.write_score"));
        assert_eq!(s.jobs.len(), 1);
        assert_eq!(s.commit.as_deref(), Some(cat.index.commits[1].id.as_str()));
        assert_eq!(s.report.as_deref(), Some("r1"));
        // And the defaults are a valid state.
        let (r, notices) = resolve(&cat, s.clone());
        assert_eq!(r, s);
        assert!(notices.is_empty());
    }

    #[test]
    fn resolve_drops_unknown_names_and_completes_prefixes() {
        let cat = Catalog::new(sample_index());
        let (s, _) = ViewState::parse(
            "view=trend&testcase=blogbench,nope&p.fs=xfs,zfs&p.colour=red&metric=x.y&jobs=zz&commit=19957a1&base=4df0&head=v6.16-rc4",
        );
        let (s, notices) = resolve(&cat, s);
        assert_eq!(
            s.to_query(),
            "view=trend&testcase=blogbench&p.fs=xfs&commit=19957a1816bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb&head=v6.16-rc4"
        );
        assert_eq!(notices.len(), 6, "{notices:?}");
    }

    #[test]
    fn from_query_defaults_only_when_empty() {
        let cat = Catalog::new(sample_index());
        // the first screen is the reports list
        assert_eq!(from_query(&cat, "").0, ViewState::default());
        let (s, n) = from_query(&cat, "bogus=1");
        assert_eq!((s, n.len()), (ViewState::default(), 1));
        let (s, n) = from_query(&cat, "metric=nope&p.colour=red");
        assert_eq!((s, n.len()), (defaults(&cat), 2), "a trend of an unknown metric: the newest headline's");
        // the trend without a metric shows the newest headline's
        assert_eq!(from_query(&cat, "view=trend").0, defaults(&cat));
        // and so does Compare with nothing chosen (an unknown metric dropped): its job, base against head
        let newest = ViewState { tab: Tab::Compare, ..defaults(&cat) };
        assert!(newest.job.is_some() && newest.commit.is_some());
        assert_eq!(from_query(&cat, "view=compare").0, newest);
        let (s, n) = from_query(&cat, "view=compare&metric=nope");
        assert_eq!((s, n.len()), (newest, 1));
        // a job chosen is kept
        let job = cat.index.jobs[2].id.clone();
        let (s, n) = from_query(&cat, &format!("view=compare&job={job}"));
        assert_eq!((s.job.as_deref(), s.metric.as_deref(), n.len()), (Some(job.as_str()), None, 0));
    }

    #[test]
    fn commit_prefix_must_be_unique_and_long_enough() {
        let cat = Catalog::new(sample_index());
        assert_eq!(cat.commit_pos("19957a"), None);
        assert_eq!(cat.commit_pos("19957a18"), Some(1));
        assert_eq!(cat.commit_pos("v6.16-rc4"), Some(2));
    }

    #[test]
    fn reports_of_a_commit() {
        let cat = Catalog::new(sample_index());
        assert_eq!(cat.reports_of_commit(1, None), vec![0]);
        assert_eq!(cat.reports_of_commit(1, Some(1)), Vec::<usize>::new());
        assert_eq!(cat.reports_of_commit(2, None), Vec::<usize>::new());
        assert!(cat.testcase_has_metric("fio-basic", "mpstat.cpu.all.idle%"));
        assert!(!cat.testcase_has_metric("fio-basic", "blogbench.read_score"));
    }
}
