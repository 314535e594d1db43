//! The commit panel: the selected commit with its link, the reports that measured it, the job's
//! parameters and the reproduce script (copy, download).

use super::context::{Cat, Nav};
use crate::html::safe_href;
use crate::state::Tab;
use crate::{views, web};
use leptos::prelude::*;
use model::paths;

#[derive(Clone, PartialEq)]
struct Selection {
    commit: usize,
    job: Option<usize>,
    report: Option<usize>,
    script: Option<String>,
}

#[component]
pub fn CommitPanel() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let cat = expect_context::<Cat>();
    let c1 = cat.clone();
    let sel = Memo::new(move |_| {
        nav.state.with(|s| {
            let commit = c1.commit_pos(s.commit.as_deref()?)?;
            let job = s.job.as_deref().and_then(|j| c1.job_pos(j));
            let report = views::panel_report(&c1, s, commit, job);
            let job = job.or_else(|| {
                let r = &c1.index.reports[report?];
                r.sections.iter().find(|x| x.commits.contains(&(commit as u32))).and_then(|x| x.job).map(|j| j as usize)
            });
            let script = views::panel_script(&c1, report, job);
            Some(Selection { commit, job, report, script })
        })
    });
    let script_hash = Memo::new(move |_| sel.get().and_then(|s| s.script));
    let script = LocalResource::new(move || {
        let hash = script_hash.get();
        async move {
            match hash {
                Some(h) => web::load_text(&paths::script(&h)).await.map(Some),
                None => Ok(None),
            }
        }
    });
    move || sel.get().map(|s| panel(&cat, nav, s, script))
}

fn panel(
    cat: &Cat,
    nav: Nav,
    s: Selection,
    script: LocalResource<Result<Option<std::sync::Arc<String>>, String>>,
) -> impl IntoView {
    let idx = &cat.index;
    let c = &idx.commits[s.commit];
    let reports = cat.reports_of_commit(s.commit, None);
    let report_items = reports.iter().map(|&r| report_item(cat, &s, r)).collect_view();
    let job_rows = s.job.map(|j| job_params(&idx.jobs[j]));
    let base = report_base(cat, &s);
    let compare = on_compare(cat, nav, &s, base);
    let file_name = format!(
        "reproduce-{}-{}.sh",
        s.job.map(|j| idx.jobs[j].testcase.clone()).unwrap_or_else(|| "lkp".into()),
        c.short()
    );
    let script_view = move || -> AnyView {
        match script.get() {
            None => view! { <p class="loading">"loading the reproduce script…"</p> }.into_any(),
            Some(Err(e)) => view! { <div class="error" data-testid="error">{e}</div> }.into_any(),
            Some(Ok(None)) => {
                view! { <p class="hint">"No reproduce script was published for this job."</p> }.into_any()
            }
            Some(Ok(Some(text))) => script_box(text.to_string(), file_name.clone()).into_any(),
        }
    };
    view! {
        <section class="commit-panel" data-testid="commit-panel">
            <header>
                <h2>{commit_title(c)}</h2>
                <button class="close" title="close" on:click=move |_| nav.push(|st| {
                    st.commit = None;
                    st.report = None;
                })>"×"</button>
            </header>
            <table class="facts">{commit_facts(c)}</table>
            <button data-testid="compare-from-panel" on:click=compare>{if base.is_some() { "Compare with the report's base" } else { "Compare this commit" }}</button>
            <h3>{format!("Reports that measured it ({})", reports.len())}</h3>
            <ul class="reports">{report_items}</ul>
            {job_rows.map(|t| view! { <h3>"Job parameters"</h3> {t} })}
            <h3>"Reproduce"</h3>
            {script_view}
        </section>
    }
}

/// The commit's short id and subject, linked to the commit when it has a safe URL.
fn commit_title(c: &model::Commit) -> AnyView {
    let subject = c.subject.clone().unwrap_or_else(|| "(subject unknown)".into());
    match c.url.as_deref().and_then(safe_href) {
        Some(url) => view! {
            <a data-testid="commit-link" href=url.to_string() target="_blank" rel="noopener">
                <code>{c.short().to_string()}</code>
                " "
                {subject}
            </a>
        }
        .into_any(),
        None => view! {
            <span data-testid="commit-link">
                <code>{c.short().to_string()}</code>
                " "
                {subject}
            </span>
        }
        .into_any(),
    }
}

/// The commit's id, tag, tree and branch (those known), as table rows.
fn commit_facts(c: &model::Commit) -> impl IntoView {
    let mut facts: Vec<(&'static str, String)> = vec![("id", c.id.clone())];
    for (k, v) in [("tag", &c.tag), ("tree", &c.tree), ("branch", &c.branch)] {
        if let Some(v) = v {
            facts.push((k, v.clone()));
        }
    }
    facts.into_iter().map(|(k, v)| view! { <tr><th>{k}</th><td><code>{v}</code></td></tr> }).collect_view()
}

/// Report `r` in the list of those that measured the commit: its link, date, materials, the
/// headline claims and the replies' notes.
fn report_item(cat: &Cat, s: &Selection, r: usize) -> impl IntoView {
    let idx = &cat.index;
    let rep = &idx.reports[r];
    let for_job = s.job.is_some_and(|j| rep.sections.iter().any(|x| x.job == Some(j as u32)));
    let subject = rep.subject.clone().unwrap_or_else(|| rep.source.clone());
    let link = match rep.url.as_deref().and_then(safe_href) {
        Some(u) => view! { <a href=u.to_string() target="_blank" rel="noopener">{subject}</a> }.into_any(),
        None => view! { <span>{subject}</span> }.into_any(),
    };
    let materials = rep.materials_url.as_deref().and_then(safe_href).map(|u| {
        view! {
            " · "
            <a href=u.to_string() target="_blank" rel="noopener">"materials"</a>
        }
    });
    let notes = rep.notes.iter().map(|n| view! { <li class="note">{n.clone()}</li> }).collect_view();
    let date = rep.date.clone().map(|d| format!(" · {d}"));
    // What the report claims in its headline(s).
    let claims = idx
        .headlines
        .iter()
        .filter(|h| h.report as usize == r)
        .map(|h| {
            let change = h.change.map(|c| format!(" {c:+.1}%")).unwrap_or_default();
            let class = format!("claim dir-{}", if h.word.is_empty() { "undefined" } else { h.word.as_str() });
            view! { <li class=class>{format!("{}{change} {}", h.metric, h.word)}</li> }
        })
        .collect_view();
    view! {
        <li class:current=Some(r) == s.report class:this-job=for_job>
            {link}
            <span class="meta">{date} {materials}</span>
            <ul class="notes">{claims} {notes}</ul>
        </li>
    }
}

/// The job's testcase, machine and parameters.
fn job_params(job: &model::Job) -> impl IntoView {
    let mut rows = vec![("testcase".to_string(), job.testcase.clone()), ("machine".to_string(), job.machine.clone())];
    rows.extend(job.params.iter().map(|(k, v)| (k.clone(), v.clone())));
    let rows = rows.into_iter().map(|(k, v)| view! { <tr><th>{k}</th><td>{v}</td></tr> }).collect_view();
    view! { <table class="params">{rows}</table> }
}

/// The report's base of this commit, for "compare with base".
fn report_base(cat: &Cat, s: &Selection) -> Option<u32> {
    s.report.and_then(|r| {
        cat.index.reports[r]
            .sections
            .iter()
            .find(|x| x.commits.contains(&(s.commit as u32)) && s.job.is_none_or(|j| x.job == Some(j as u32)))
            .and_then(|x| x.commits.first().copied())
            .filter(|&b| b as usize != s.commit)
    })
}

/// "Compare": the commit as head (against `base`, when known), in the selected job if any.
fn on_compare(cat: &Cat, nav: Nav, s: &Selection, base: Option<u32>) -> impl Fn(leptos::ev::MouseEvent) + 'static {
    let idx = &cat.index;
    let head_id = idx.commits[s.commit].id.clone();
    let job_id = s.job.map(|j| idx.jobs[j].id.clone());
    let base_id = base.map(|b| idx.commits[b as usize].id.clone());
    move |_| {
        let (head_id, job_id, base_id) = (head_id.clone(), job_id.clone(), base_id.clone());
        nav.push(move |st| {
            st.tab = Tab::Compare;
            st.head = Some(head_id);
            if let Some(b) = base_id {
                st.base = Some(b);
            }
            if let Some(j) = job_id {
                st.job = Some(j);
            }
        })
    }
}

pub fn script_box(text: String, file_name: String) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let t1 = text.clone();
    let copy = move |_| {
        let t = t1.clone();
        leptos::task::spawn_local(async move {
            status.set(match web::copy_text(&t).await {
                Ok(()) => "copied".into(),
                Err(e) => format!("copy failed ({e}); select the text instead"),
            });
        });
    };
    let t2 = text.clone();
    let download = move |_| {
        if let Err(e) = web::download(&file_name, &t2, "text/x-shellscript") {
            status.set(format!("download failed: {e}"));
        }
    };
    view! {
        <div class="script-tools">
            <button data-testid="copy-script" on:click=copy>"Copy"</button>
            <button data-testid="download-script" on:click=download>"Download"</button>
            <span class="copied">{move || status.get()}</span>
        </div>
        <pre class="script" data-testid="reproduce-script" tabindex="0">{text}</pre>
    }
}
