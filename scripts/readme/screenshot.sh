#!/usr/bin/env bash
# The README's screenshot of `fpdiv report`, made from a real run (`make readme-screenshot`): a short
# campaign on fpdiv's own kernels and the A100 tensor-core model (whose bits are the same on every
# x86-64 CPU), a sweep, a bisection and a summation tree saved beside its corpus, the page written
# and rendered by Chromium's headless shell. The environment on the page is the machine's it ran on.
# Usage: scripts/readme/screenshot.sh [OUT.png]   (default scripts/readme/report.png)
set -eu
FPDIV=${FPDIV:-build/fpdiv}
out=${1:-scripts/readme/report.png}
browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$browser" ]; then
    echo "screenshot.sh: no Chromium (chromium-headless-shell): scripts/install-deps.sh installs it" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export FPDIV_PYTHON=/bin/false # only fpdiv's own backends: the page is the same on any machine but for its environment

case $FPDIV in /*) ;; *) FPDIV=$PWD/$FPDIV ;; esac
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$tmp" # the page names the corpus and the campaign as they were given: short
status=0
"$FPDIV" fuzz --seed 11 --cases 1500 --relations addmm,slice-rows,layout,cast-in \
    --backends seq,pairwise,splitk,blocked,tc-a100 --dtypes f32,bf16,f16 --corpus corpus --json >run.jsonl || status=$?
[ "$status" -le 1 ] || exit "$status" # 1: findings, as a campaign on these kernels has
"$FPDIV" sweep --relation vendor --backend seq,pairwise --shape 16x16x1 --vary k --range 1:4097:64 \
    --save-to corpus >/dev/null
"$FPDIV" bisect --relation vendor --backend seq,tc-a100 --dtype f16:f32 --good 8x8x1 --bad 8x8x64 --scan \
    --save-to corpus >/dev/null
"$FPDIV" explain --backend pairwise --shape 1x1x12 --save-to corpus >/dev/null
"$FPDIV" report corpus --campaign run.jsonl -o report.html >/dev/null
# the campaign's table with the most reordered rows first, as a click on its heading sorts it
timeout 120 "$browser" --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,1700 \
    --screenshot="$tmp/shot.png" "file://$tmp/report.html#sort=summary-table.4.desc" >/dev/null 2>&1
mv "$tmp/shot.png" "$out"
echo "wrote $out"
