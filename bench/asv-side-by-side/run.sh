#!/usr/bin/env bash
# Side by side, in one run on the same data: asv's published site vs LKP Explorer.
#
# usage: run.sh SIZE          SIZE = S | M | L | <benchmarks>x<commits>
#   S = 50 benchmarks x 6 combos x 100 commits, M = 600 x 6 x 200, L = 3000 x 6 x 500 (as tools/asv-baseline).
# env:  RUNS=20              browser runs per site (interleaved asv, LKP, asv, LKP, ... after one warm-up pair)
#       WORK=/tmp/sbs        everything is generated and built here (never in a git repository)
#       LKP_SRC=.            LKP Explorer checkout to clone (default: the current directory) (built in $WORK/lkp-src, the source is not touched)
#       ASV_VERSION=0.6.6    asv from PyPI (the version measured as the anchor)
#       PUBLISH_TIMEOUT=3600 seconds allowed for `asv publish`
#       SKIP_BROWSER=1       stop after publish/import; KEEP=1 reuse generated data of this size
#       BENCH=blogbench.write_score  BENCH2=blogbench.read_score  SWITCH=fs=btrfs
#       SITES=asv,lkp        the sites measured, interleaved; lkp-svg adds the SVG-first path (the testcase's
#                            static page p/tc/<testcase>/, its trend an inline SVG; BENCH must be the metric it draws)
#       SERVER=python        python (python3 -m http.server: one request per connection, no gzip) or nginx
#                            (Debian's nginx: gzip level 6 for html/css/js/json/wasm, keep-alive, as hosts serve);
#                            browser results go to browser-$SERVER.json when SERVER is not python
#       SPREAD=1             LKP runs' stddev = SPREAD x the asv value's noise (asv2lkp.py --spread); the output
#                            folder is size-SIZE-spreadX when SPREAD is not 1
#
# Steps: (1) tools: asv venv, npm page libraries + playwright-core (as tools/asv-baseline/measure.sh), LKP
# Explorer cloned and built (`cargo build --release -p importer --bin lkpx`, `trunk build --release`);
# (2) data: gen_asv_data.py writes the asv project (git repo + results/), asv2lkp.py writes lkp-tests
# result roots with the same series, `git log --format='%H %ct %s'` of the same repo for --git-log;
# (3) `asv publish` and `lkpx import --git-log` timed with /usr/bin/time -v; sizes and file counts;
# (4) sites: asv html/ with its CDN tags made local (localize_html.py), LKP Explorer's dist/ with the
# imported data/ in place of the bundled one (README "Hosting"); each served by `python3 -m http.server`
# on 127.0.0.1; (5) measure.js (one harness, one "chart shown" definition); (6) table.py.
# Output: $WORK/size-SIZE/{prep.json,browser.json,shots/,*.log}; the tables on stdout.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# asv's own tools stay where the shared bench keeps them (the anchor is measured as it is)
BASE_TOOLS=$(cd "${ASV_BASELINE:-$HERE/../../../shared/bench/asv-baseline}" && pwd)
SIZE=${1:?usage: run.sh S|M|L|<benchmarks>x<commits>}
WORK=${WORK:-/tmp/sbs}
RUNS=${RUNS:-20}
LKP_SRC=${LKP_SRC:-$PWD}
ASV_VERSION=${ASV_VERSION:-0.6.6}
PUBLISH_TIMEOUT=${PUBLISH_TIMEOUT:-3600}
BENCH=${BENCH:-blogbench.write_score}
BENCH2=${BENCH2:-blogbench.read_score}
SWITCH=${SWITCH:-fs=btrfs}
TESTCASE=blogbench
case $SIZE in
  S) NB=50; NC=100 ;;
  M) NB=600; NC=200 ;;
  L) NB=3000; NC=500 ;;
  *x*) NB=${SIZE%x*}; NC=${SIZE#*x} ;;
  *) echo "unknown size $SIZE" >&2; exit 2 ;;
esac
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# ---------------------------------------------------------------- (1) tools
CHROMIUM=$(command -v chromium) || { echo "chromium not found (apt-get install chromium)" >&2; exit 1; }
if [[ ! -x $WORK/venv/bin/asv ]]; then
  log "venv + pip install asv==$ASV_VERSION"
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install -q --disable-pip-version-check "asv==$ASV_VERSION"
fi
NODE_DIR=$WORK/node
if [[ ! -d $NODE_DIR/node_modules/playwright-core || ! -d $NODE_DIR/flot-min ]]; then
  log "npm install (asv's page libraries, playwright-core, terser)"
  mkdir -p "$NODE_DIR"
  ( cd "$NODE_DIR" && { [[ -f package.json ]] || npm init -y >/dev/null; } &&
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --save-exact --no-audit --no-fund --loglevel=error \
      jquery@3.3.1 flot@0.8.3 flot-orderbars@1.0.0 stupid-table-plugin@1.1.3 blueimp-md5@2.19.0 bootstrap@3.1.1 \
      playwright-core@1.65.1 terser@5.51.4 >/dev/null )
  mkdir -p "$NODE_DIR/flot-min"
  for f in jquery.flot jquery.flot.time jquery.flot.selection jquery.flot.categories; do
    "$NODE_DIR/node_modules/.bin/terser" "$NODE_DIR/node_modules/flot/$f.js" -c -m --comments some -o "$NODE_DIR/flot-min/$f.min.js"
  done
fi
SRC=$WORK/lkp-src
if [[ ! -d $SRC/.git ]]; then
  log "git clone $LKP_SRC $SRC"
  git clone -q "$LKP_SRC" "$SRC"
fi
if [[ ! -x $SRC/e2e/node_modules/.bin/wasm-opt ]]; then
  log "npm ci in $SRC/e2e (binaryen's wasm-opt for trunk)"
  ( cd "$SRC/e2e" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >/dev/null )
fi
LKPX=$SRC/target/release/lkpx
if [[ ! -x $LKPX || ! -f $SRC/dist/index.html ]]; then
  log "building LKP Explorer: lkpx (release) and the site (trunk build --release)"
  ( cd "$SRC" && . scripts/env.sh && cargo build -q --release -p importer --bin lkpx && trunk build --release ) >"$WORK/lkp-build.log" 2>&1 \
    || { tail -30 "$WORK/lkp-build.log" >&2; exit 1; }
fi

SPREAD=${SPREAD:-1}
D=$WORK/size-$SIZE; [[ $SPREAD == 1 ]] || D=$D-spread$SPREAD
if [[ ${KEEP:-0} != 1 || ! -f $D/prep.json ]]; then
rm -rf "$D"
mkdir -p "$D/shots"
# ---------------------------------------------------------------- (2) the same series for both
log "asv project: $NB benchmarks x 6 x $NC commits"
"$WORK/venv/bin/python" "$BASE_TOOLS/gen_asv_data.py" --benchmarks "$NB" --commits "$NC" --out "$D/project" --check >"$D/gen.log"
log "lkp-tests result roots with the same series"
python3 "$HERE/asv2lkp.py" "$D/project" "$D/lkp-roots" --testcase "$TESTCASE" --spread "$SPREAD" >"$D/asv2lkp.json"
git -C "$D/project/repo" log --format='%H %ct %s' main >"$D/gitlog.txt"
sync

# ---------------------------------------------------------------- (3) asv publish, lkpx import
log "asv publish (timeout ${PUBLISH_TIMEOUT}s)"
set +e
( cd "$D/project" && timeout "$PUBLISH_TIMEOUT" /usr/bin/time -v -o "$D/publish.time" \
    "$WORK/venv/bin/asv" publish --no-pull --config asv.conf.json ) >"$D/publish.log" 2>&1
PUB_RC=$?
log "lkpx import --git-log"
/usr/bin/time -v -o "$D/import.time" "$LKPX" import --out "$D/lkp-data" --git-log "$D/gitlog.txt" "$D/lkp-roots" >"$D/import.log" 2>&1
IMP_RC=$?
set -e
python3 - "$D" "$PUB_RC" "$IMP_RC" "$NB" "$NC" "$SRC" "$ASV_VERSION" <<'PY'
import json, os, re, subprocess, sys
d, pub_rc, imp_rc, nb, nc, src, asv_version = sys.argv[1:8]
def tree(p):
    n = b = 0
    for r, _, fs in os.walk(p):
        for f in fs:
            n += 1; b += os.path.getsize(os.path.join(r, f))
    return {"files": n, "bytes": b}
def timev(p):
    t = open(p).read()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", t)
    user = re.search(r"User time \(seconds\): (\S+)", t); sys_ = re.search(r"System time \(seconds\): (\S+)", t)
    w = 0.0
    if wall:
        for part in wall.group(1).split(":"):
            w = w * 60 + float(part)
    return {"wall_s": w, "maxrss_kb": int(rss.group(1)) if rss else None,
            "cpu_s": (float(user.group(1)) + float(sys_.group(1))) if user and sys_ else None}
out = {"benchmarks": int(nb), "combos": 6, "commits": int(nc),
       "asv_results": tree(os.path.join(d, "project", "results")),
       "lkp_roots": tree(os.path.join(d, "lkp-roots")),
       "asv2lkp": json.load(open(os.path.join(d, "asv2lkp.json"))),
       "publish_rc": int(pub_rc), "import_rc": int(imp_rc)}
if os.path.exists(os.path.join(d, "publish.time")):
    out["publish"] = timev(os.path.join(d, "publish.time"))
out["import"] = timev(os.path.join(d, "import.time"))
out["asv_site"] = tree(os.path.join(d, "project", "html"))
out["lkp_data"] = tree(os.path.join(d, "lkp-data"))
idx = os.path.join(d, "project", "html", "index.json")
out["asv_index_json_bytes"] = os.path.getsize(idx) if os.path.exists(idx) else None
li = os.path.join(d, "lkp-data", "index.json")
out["lkp_index_json_bytes"] = os.path.getsize(li) if os.path.exists(li) else None
out["import_log_tail"] = open(os.path.join(d, "import.log"), errors="replace").read().splitlines()[-5:]
out["lkp_commit"] = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
out["asv_version"] = asv_version
json.dump(out, open(os.path.join(d, "prep.json"), "w"), indent=1)
PY
if [[ $PUB_RC != 0 || $IMP_RC != 0 ]]; then
  log "asv publish rc=$PUB_RC, lkpx import rc=$IMP_RC (logs: $D/publish.log $D/import.log)"
fi
fi
python3 "$HERE/table.py" "$D" --prep-only
if [[ ${SKIP_BROWSER:-0} == 1 ]]; then exit 0; fi

# ---------------------------------------------------------------- (4) the two sites, same server
H=$D/project/html
"$WORK/venv/bin/python" "$BASE_TOOLS/localize_html.py" "$H" "$NODE_DIR/node_modules" "$NODE_DIR/flot-min" >"$D/localize.jsonl"
SITE=$D/lkp-site
rm -rf "$SITE"; mkdir -p "$SITE"
for f in "$SRC"/dist/*; do [[ $(basename "$f") == data ]] || cp -a "$f" "$SITE/"; done
cp -a "$D/lkp-data" "$SITE/data"
# the imported data's static pages (reports m/, lists p/) at the site's root, as scripts/build-app.sh
# places the bundled data's (the root page keeps the build's: its preloads of the app)
for d in m p; do
  rm -rf "${SITE:?}/$d"
  if [[ -d $SITE/data/$d ]]; then mv "$SITE/data/$d" "$SITE/$d"; fi
done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
P1=$(free_port); P2=$(free_port)
SERVER=${SERVER:-python}
BJ=browser.json; [[ $SERVER == python ]] || BJ=browser-$SERVER.json
case $SERVER in
  python)
    python3 -m http.server "$P1" --bind 127.0.0.1 --directory "$H" >"$D/http-asv.log" 2>&1 &
    PID1=$!
    python3 -m http.server "$P2" --bind 127.0.0.1 --directory "$SITE" >"$D/http-lkp.log" 2>&1 &
    PID2=$!
    ;;
  nginx)
    command -v nginx >/dev/null || { echo "nginx not found (apt-get install nginx-light)" >&2; exit 1; }
    NG=$D/nginx; rm -rf "$NG"; mkdir -p "$NG/tmp"
    site_block() { cat <<NGX
  server {
    listen 127.0.0.1:$1;
    root $2;
    index index.html;
    access_log off;
  }
NGX
    }
    cat >"$NG/nginx.conf" <<NGX
user root;
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/error.log;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  sendfile on; tcp_nopush on; keepalive_timeout 65;
  gzip on; gzip_comp_level 6; gzip_min_length 256; gzip_vary on;
  gzip_types text/css application/javascript text/javascript application/json application/wasm image/svg+xml;
  client_body_temp_path $NG/tmp; proxy_temp_path $NG/tmp; fastcgi_temp_path $NG/tmp; uwsgi_temp_path $NG/tmp; scgi_temp_path $NG/tmp;
$(site_block "$P1" "$H")
$(site_block "$P2" "$SITE")
}
NGX
    nginx -p "$NG" -c "$NG/nginx.conf" -g 'daemon off;' >"$D/http-nginx.log" 2>&1 &
    PID1=$!; PID2=$PID1
    ;;
  *) echo "unknown SERVER=$SERVER (python or nginx)" >&2; exit 2 ;;
esac
trap 'kill $PID1 $PID2 2>/dev/null || true' EXIT
python3 - "$P1" "$P2" <<'PY'
import sys, time, urllib.request
for p in sys.argv[1:]:
    for _ in range(100):
        try:
            urllib.request.urlopen("http://127.0.0.1:%s/index.html" % p, timeout=2).read(); break
        except OSError:
            time.sleep(0.1)
PY
# ---------------------------------------------------------------- (5) browser, interleaved
log "browser: $RUNS runs per site, interleaved (asv :$P1, LKP Explorer :$P2)"
rm -rf "$D/shots"; mkdir -p "$D/shots"
NODE_PATH=$NODE_DIR/node_modules node "$HERE/measure.js" --asv "http://127.0.0.1:$P1/" --lkp "http://127.0.0.1:$P2/" \
  --runs "$RUNS" --bench "$BENCH" --bench2 "$BENCH2" --testcase "$TESTCASE" --switch "$SWITCH" --sites "${SITES:-asv,lkp}" \
  --out "$D/$BJ" --shots "$D/shots" --chromium "$CHROMIUM" --profile-root "$WORK" 2>"$D/${BJ%.json}.log"
kill $PID1 $PID2 2>/dev/null || true
# ---------------------------------------------------------------- (6) tables
python3 "$HERE/table.py" "$D" --browser "$BJ"
python3 "$HERE/bytes.py" "$D/$BJ"
