#!/usr/bin/env python3
"""Markdown tables of a side-by-side run (run.sh): browser measures per site and the ratio LKP/asv,
then publish/import time and sizes.

Usage: table.py SIZE_DIR [--prep-only] [--browser browser.json]      (SIZE_DIR holds prep.json and browser*.json)
Browser cells: median / p95 / max over the timed runs (warm-up pair left out); p95 is the nearest-rank
value (the 19th of 20). "ratio" = median(LKP) / median(asv); "paired" = median over i of LKP_i / asv_i,
where run i of both sites ran back to back, so slow phases of the shared machine hit both.
"""
import json
import math
import os
import sys


def q(xs, p):
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(p * len(s)) - 1))]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


MEASURES = [
    # key, label, scale, format
    ("shownMs", "chart shown after navigation start (ms)", 1, "%.0f"),
    ("libMs", "… the site's own 'drawn' signal (flot draw hook / data-draws) (ms)", 1, "%.0f"),
    ("dclMs", "DOMContentLoaded (ms)", 1, "%.0f"),
    ("shownMinusDcl", "chart shown minus DOMContentLoaded (ms)", 1, "%.0f"),
    ("indexJsonMs", "index.json received (ms)", 1, "%.0f"),
    ("chartDataMs", "chart's data file received (ms)", 1, "%.0f"),
    ("kB", "bytes transferred until network idle (kB)", 1 / 1000, "%.0f"),
    ("requests", "requests until network idle", 1, "%.0f"),
    ("filterMs", "filter click (fs=btrfs) to chart shown (ms)", 1, "%.1f"),
    ("filterLibMs", "… to the site's own signal (ms)", 1, "%.1f"),
    ("undoMs", "same click again (undo, back to all 6 series) to chart shown (ms)", 1, "%.1f"),
    ("undoLibMs", "… to the site's own signal (ms)", 1, "%.1f"),
    ("metricMs", "metric switch (pick blogbench.read_score) to chart shown (ms)", 1, "%.1f"),
    ("metricLibMs", "… to the site's own signal (ms)", 1, "%.1f"),
    ("metricKB", "metric switch: bytes transferred (kB)", 1 / 1000, "%.1f"),
    ("metricRequests", "metric switch: requests", 1, "%.0f"),
    ("libToShown", "check: pixel frame minus site signal, load (ms)", 1, "%.1f"),
    ("pixelCheckMaxMs", "check: longest pixel read in a run (ms)", 1, "%.1f"),
]


def value(r, key):
    if key == "shownMinusDcl":
        return r["shownMs"] - r["dclMs"] if r.get("shownMs") is not None and r.get("dclMs") else None
    if key == "kB":
        return r.get("bytes")
    if key == "metricKB":
        return r.get("metricBytes")
    if key == "libToShown":
        return r["shownMs"] - r["libMs"] if r.get("libMs") is not None and r.get("shownMs") is not None else None
    return r.get(key)


def cell(xs, scale, fmt):
    if not xs:
        return "–"
    return " / ".join(fmt % (v * scale) for v in (median(xs), q(xs, 0.95), max(xs)))


NAMES = {"lkp": "LKP Explorer", "lkp-svg": "LKP Explorer, SVG first (testcase page)"}


def browser_table(br, site="lkp"):
    timed = [r for r in br["results"] if not r.get("warmup")]
    A = {r["i"]: r for r in timed if r["site"] == "asv"}
    L = {r["i"]: r for r in timed if r["site"] == site}
    n = min(len(A), len(L))
    print("| measure (median / p95 / max of %d runs each) | asv | %s | ratio LKP/asv (medians) | paired ratio (median of LKP_i/asv_i) |" % (n, NAMES[site]))
    print("|---|---|---|---|---|")
    for key, label, scale, fmt in MEASURES:
        a = [value(r, key) for r in A.values()]
        l = [value(r, key) for r in L.values()]
        a = [x for x in a if isinstance(x, (int, float))]
        l = [x for x in l if isinstance(x, (int, float))]
        ratio = "%.2f" % (median(l) / median(a)) if a and l and median(a) else "–"
        pairs = [value(L[i], key) / value(A[i], key) for i in A if i in L
                 and isinstance(value(L[i], key), (int, float)) and isinstance(value(A[i], key), (int, float)) and value(A[i], key)]
        paired = "%.2f" % median(pairs) if pairs else "–"
        if key.startswith("libToShown") or key.startswith("pixelCheck"):
            ratio = paired = ""
        print("| %s | %s | %s | %s | %s |" % (label, cell(a, scale, fmt), cell(l, scale, fmt), ratio, paired))
    # counts that should not vary
    def uniq(rs, k):
        return sorted(set(str(r.get(k)) for r in rs))
    print()
    print("| check | asv | %s |" % NAMES[site])
    print("|---|---|---|")
    for k, label in [("libSeries", "series drawn at load"), ("filterSeries", "series drawn after the filter click"), ("undoSeries", "series drawn after the undo click"),
                     ("metricSeries", "series drawn after the metric switch"), ("canvas", "chart canvas size (px)"), ("failed", "failed requests"), ("dirtyFramesBefore", "canvas-drawn frames before the chart frame"),
                     ("svgPixels", "coloured pixels of the SVG, rasterised (check)"), ("svgMetric", "metric the SVG draws")]:
        if k == "shownPixels":
            va = [r.get(k) for r in A.values() if r.get(k) is not None]
            vl = [r.get(k) for r in L.values() if r.get(k) is not None]
            print("| %s | %s | %s |" % (label, "%d–%d" % (min(va), max(va)) if va else "–", "%d–%d" % (min(vl), max(vl)) if vl else "–"))
        else:
            print("| %s | %s | %s |" % (label, ", ".join(uniq(A.values(), k)), ", ".join(uniq(L.values(), k))))
    errs = [(r["site"], r["i"], r.get("error") or r.get("filterError") or r.get("metricError") or r.get("undoError") or r.get("probeError"))
            for r in br["results"] if r.get("error") or r.get("filterError") or r.get("metricError") or r.get("undoError") or r.get("probeError")]
    perrs = [(r["site"], r["i"], e) for r in br["results"] for e in r.get("pageErrors", [])]
    print("| runs with harness errors | %d | %d |" % (sum(1 for e in errs if e[0] == "asv"), sum(1 for e in errs if e[0] == site)))
    print("| page errors (console/pageerror) | %d | %d |" % (sum(1 for e in perrs if e[0] == "asv"), sum(1 for e in perrs if e[0] == site)))
    for e in (errs + perrs)[:10]:
        print("\n- %s run %s: %s" % e)


def prep_table(p):
    mb = lambda b: "%.1f" % (b / 1e6)
    pub, imp = p.get("publish") or {}, p.get("import") or {}
    print("| shape | %d benchmarks/metrics x %d combos x %d commits (%d points; LKP: %d runs each) |" % (
        p["benchmarks"], p["combos"], p["commits"], p["asv2lkp"]["points"], p["asv2lkp"]["runs_per_commit"]))
    print("|---|---|")
    print()
    print("| build step | asv (`asv publish`) | LKP Explorer (`lkpx import --git-log`) | ratio LKP/asv |")
    print("|---|---|---|---|")
    r = lambda a, b: ("%.2f" % (b / a)) if a and b else "–"
    print("| input: files / MB | %d / %s | %d / %s | |" % (p["asv_results"]["files"], mb(p["asv_results"]["bytes"]),
                                                        p["lkp_roots"]["files"], mb(p["lkp_roots"]["bytes"])))
    print("| wall time (s) | %.1f | %.1f | %s |" % (pub.get("wall_s", float("nan")), imp.get("wall_s", float("nan")),
                                                   r(pub.get("wall_s"), imp.get("wall_s"))))
    print("| CPU time user+sys (s) | %.1f | %.1f | %s |" % (pub.get("cpu_s") or float("nan"), imp.get("cpu_s") or float("nan"),
                                                           r(pub.get("cpu_s"), imp.get("cpu_s"))))
    print("| peak RSS (MB) | %.0f | %.0f | %s |" % ((pub.get("maxrss_kb") or 0) / 1024, (imp.get("maxrss_kb") or 0) / 1024,
                                                   r(pub.get("maxrss_kb"), imp.get("maxrss_kb"))))
    print("| exit status | %d | %d | |" % (p["publish_rc"], p["import_rc"]))
    print("| output: files / MB (asv html/ without the vendored CDN files; LKP data/) | %d / %s | %d / %s | %s |" % (
        p["asv_site"]["files"], mb(p["asv_site"]["bytes"]), p["lkp_data"]["files"], mb(p["lkp_data"]["bytes"]),
        r(p["asv_site"]["bytes"], p["lkp_data"]["bytes"])))
    print("| index.json (kB) | %.1f | %.1f | %s |" % ((p["asv_index_json_bytes"] or 0) / 1e3, (p["lkp_index_json_bytes"] or 0) / 1e3,
                                                    r(p["asv_index_json_bytes"], p["lkp_index_json_bytes"])))


def main():
    d = sys.argv[1]
    p = json.load(open(os.path.join(d, "prep.json")))
    prep_table(p)
    if "--prep-only" in sys.argv:
        return
    name = sys.argv[sys.argv.index("--browser") + 1] if "--browser" in sys.argv else "browser.json"
    bp = os.path.join(d, name)
    if os.path.exists(bp):
        br = json.load(open(bp))
        for site in br.get("sites", ["asv", "lkp"]):
            if site != "asv":
                print()
                browser_table(br, site)


if __name__ == "__main__":
    main()
