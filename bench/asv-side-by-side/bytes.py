#!/usr/bin/env python3
"""Bytes of the first visit, split into data and app shell, from a measure.js result (browser*.json).

usage: bytes.py BROWSER_JSON

measure.js records, for the first timed run of each site, every response until network idle with its bytes on
the wire (CDP encodedDataLength: compressed when the server gzips). "Data" is what the page fetches besides its
app shell and page libraries (which a browser caches across visits): asv's index.json and graphs/*.json, LKP
Explorer's data/*. "Cold visit" is everything. "Before the chart was shown": the data responses that had
ended (resource timing's responseEnd, transferSize) when the chart was first shown. Prints a markdown table.
"""
import json
import sys


def is_data(site, path):
    if site == "asv":
        return path.endswith("/index.json") or "/graphs/" in path
    return "/data/" in path


def split(files, site):
    data = shell = 0
    data_files = []
    for path, n in files:
        if not isinstance(n, int):
            continue
        if is_data(site, path):
            data += n
            data_files.append((path, n))
        else:
            shell += n
    return data, shell, data_files


def main():
    b = json.load(open(sys.argv[1]))
    got, before = {}, {}
    for r in b["results"]:
        if r.get("files") and not r.get("warmup"):
            got[r["site"]] = split(r["files"], r["site"])
            if r.get("beforeShown") is not None:
                before[r["site"]] = split(r["beforeShown"], r["site"])
    print("| first visit, bytes on the wire (kB) | asv | LKP Explorer | ratio LKP/asv |")
    print("|---|---|---|---|")
    for label, k in (("data (all but app shell / page libraries)", 0), ("app shell / page libraries", 1)):
        a, l = got["asv"][k] / 1e3, got["lkp"][k] / 1e3
        print("| %s | %.1f | %.1f | %.2f |" % (label, a, l, l / a if a else float("nan")))
    a, l = sum(got["asv"][:2]) / 1e3, sum(got["lkp"][:2]) / 1e3
    print("| cold visit total | %.1f | %.1f | %.2f |" % (a, l, l / a))
    if len(before) == 2:
        # resource timing's transferSize, of the responses that had ended when the chart was shown
        a, l = before["asv"][0] / 1e3, before["lkp"][0] / 1e3
        print("| data received before the chart was shown | %.1f | %.1f | %.2f |" % (a, l, l / a if a else float("nan")))
        for site in ("asv", "lkp"):
            print("\n%s data before the chart: %s" % (site, ", ".join("%s %.1f kB" % (p.rsplit("/", 1)[-1], n / 1e3)
                                                                  for p, n in before[site][2])))
    for site in ("asv", "lkp"):
        print("\n%s data files: %s" % (site, ", ".join("%s %.1f kB" % (p.rsplit("/", 1)[-1], n / 1e3)
                                                        for p, n in got[site][2])))


if __name__ == "__main__":
    main()
