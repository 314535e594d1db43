#!/usr/bin/env python3
"""Detected steps of an `lkpx import` of the asv side-by-side series, scored against the generator's level shifts.

usage: detections.py SIZE_DIR [--tolerance 1]
  SIZE_DIR  a run.sh output folder (…/size-M): holds lkp-data/ (the published LKP data) and project/ (the asv project
            written by gen_asv_data.py, whose per-series models this script re-draws with the same seed)

The generator (../shared/bench/asv-baseline/gen_asv_data.py) gives each (benchmark, fs × disk) series 0-3 level
shifts at random commits, each by a factor of 0.8..1.25, and per-commit noise `rel` (0.3-4 % of the level). Its
random draws are deterministic for (seed, benchmarks, commits); the models are the first draws after seeding, so
they are re-drawn here without writing anything. A detected step (the published trend chunks' `detected` records,
index = head commit) matches a true shift at commit `at` when |head - at| <= tolerance. A true shift whose size is
below 3x the series' noise is "faint": reported apart, since no detector should be asked to find a 0.5 % step in
4 % noise. Prints one JSON object.
"""
import argparse
import glob
import importlib.util
import json
import os
import random
import sys

GEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "bench", "asv-baseline",
                   "gen_asv_data.py")


def load_gen(path):
    spec = importlib.util.spec_from_file_location("gen_asv_data", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def true_models(gen, nb, nc, seed):
    """{(metric, fs, disk): (rel, [(at, factor)])}, exactly as gen_asv_data.main draws them."""
    rng = random.Random("%d-%d-%d" % (seed, nb, nc))
    names = gen.metric_names(nb)
    combos = [(f, d) for f in gen.FS for d in gen.DISK]
    out = {}
    for name, _unit in names:
        bench_base = 10 ** rng.uniform(0, 6)
        for fs, disk in combos:
            _base, rel, steps = gen.series_model(rng, nc, bench_base)
            out[(name, str(fs), str(disk))] = (rel, steps)
    return out


CHANGE_KEYS = ["source", "job", "metric", "base", "head", "base_mean", "head_mean", "change", "kind", "direction",
               "p_value", "noise_ratio", "report", "headline"]


def change(rec):
    """A change record: an object (data v2 before model::wire) or the fixed-order array model::wire writes."""
    return rec if isinstance(rec, dict) else dict(zip(CHANGE_KEYS, rec))


def metric_name(m):
    return m["name"] if isinstance(m, dict) else m[0]


def metric_chunk(m):
    return m.get("chunk", 0) if isinstance(m, dict) else m[2]


def detected(data):
    """{(metric, fs, disk): [head commit position]} from every trend chunk of every catalog."""
    out = {}
    for cat_path in glob.glob(os.path.join(data, "t", "*.json")):
        cat = json.load(open(cat_path))
        jobs = cat["jobs"]
        for chunk in cat["chunks"]:
            doc = json.load(open(os.path.join(data, chunk)))
            for d in map(change, doc.get("detected", [])):
                j = jobs[d["job"]]["params"]
                out.setdefault((d["metric"], j.get("fs"), j.get("disk")), []).append(d["head"])
    return out


def score(models, found, tol):
    shifts = faint = hit = hit_faint = 0
    matched_det = total_det = 0
    for key, (rel, steps) in models.items():
        heads = sorted(found.get(key, []))
        total_det += len(heads)
        used = set()
        for at, factor in steps:
            is_faint = abs(factor - 1.0) < 3 * rel
            shifts += 1
            faint += is_faint
            near = [i for i, h in enumerate(heads) if abs(h - at) <= tol and i not in used]
            if near:
                used.add(near[0])
                hit += 1
                hit_faint += is_faint
        # detections near an already matched shift (duplicates) count as false: they are extra markers
        matched_det += len(used)
    return {
        "series": len(models), "true_shifts": shifts, "faint_shifts (<3x noise)": faint,
        "detected_steps": total_det, "detections_per_true_shift": round(total_det / max(shifts, 1), 3),
        "true_shifts_found": hit, "clear_shifts_found": hit - hit_faint, "clear_shifts": shifts - faint,
        "recall_clear": round((hit - hit_faint) / max(shifts - faint, 1), 3),
        "recall_all": round(hit / max(shifts, 1), 3),
        "precision": round(matched_det / max(total_det, 1), 3),
        "false_detections": total_det - matched_det,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("size_dir")
    ap.add_argument("--tolerance", type=int, default=1)
    ap.add_argument("--gen", default=GEN)
    ap.add_argument("--seed", type=int, default=20240501)
    ap.add_argument("--metric", default="blogbench.write_score", help="the first chart's metric (run.sh BENCH)")
    a = ap.parse_args()
    prep = json.load(open(os.path.join(a.size_dir, "prep.json")))
    gen = load_gen(a.gen)
    models = true_models(gen, prep["benchmarks"], prep["commits"], a.seed)
    found = detected(os.path.join(a.size_dir, "lkp-data"))
    unknown = [k for k in found if k not in models]
    if unknown:
        sys.exit("detected steps on series the generator does not know: %r" % unknown[:3])
    out = score(models, found, a.tolerance)
    data = os.path.join(a.size_dir, "lkp-data")
    out["detected_bytes_in_chunks"] = sum(
        len(json.dumps(json.load(open(os.path.join(data, c))).get("detected", []), separators=(",", ":")))
        for p in glob.glob(os.path.join(data, "t", "*.json")) for c in json.load(open(p))["chunks"])
    for p in glob.glob(os.path.join(data, "t", "*.json")):
        cat = json.load(open(p))
        for m in cat["metrics"]:
            if metric_name(m) == a.metric:
                chunk = os.path.join(data, cat["chunks"][metric_chunk(m)])
                det = json.load(open(chunk)).get("detected", [])
                out["first_chart"] = {"metric": a.metric, "chunk_bytes": os.path.getsize(chunk),
                                      "detected_steps_in_chunk": len(det),
                                      "detected_bytes": len(json.dumps(det, separators=(",", ":")))}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
