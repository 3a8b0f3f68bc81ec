#!/usr/bin/env bash
# The report suite: `fpdiv report` and `fuzz --html` pages, opened in a real browser (Chromium's
# headless shell, from scripts/install-deps.sh), asserted on the DOM it rendered: the table's
# counts are the campaign's summary, every plot has bars or points, every saved case is shown, nothing is
# fetched from elsewhere, the console stays quiet, and hostile text in a case file stays text.
# Usage: FPDIV=build/fpdiv tests/cli/report.sh
set -u
FPDIV=${FPDIV:-build/fpdiv}
export FPDIV_PYTHON=/bin/false # the frameworks are frameworks.sh's to test
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
dom_check="python3 $(dirname "$0")/report_dom.py"

browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$browser" ]; then
    echo "FAIL report.sh: no Chromium (chromium-headless-shell): scripts/install-deps.sh installs it"
    exit 1
fi
# render PAGE NAME: the DOM after the page's scripts ran into $tmp/NAME.dom, the console's messages
# into $tmp/NAME.console, a screenshot into $tmp/NAME.png
render() {
    local page=$1 name=$2
    timeout 120 "$browser" --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --dump-dom "file://$page" \
        >"$tmp/$name.dom" 2>"$tmp/$name.log"
    grep -F "CONSOLE" "$tmp/$name.log" >"$tmp/$name.console"
    timeout 120 "$browser" --no-sandbox --disable-gpu --window-size=1250,1600 --screenshot="$tmp/$name.png" \
        "file://$page" >/dev/null 2>&1
}
# checked NAME ARGS...: report_dom.py on $tmp/NAME.dom passes, the console is empty and the
# screenshot is a PNG of more than a blank page
checked() {
    local name=$1
    shift
    if problems=$($dom_check "$tmp/$name.dom" "$@"); then pass "$name: the rendered page"; else fail "$name: the rendered page" "$problems"; fi
    [ ! -s "$tmp/$name.console" ] && pass "$name: no console message" || fail "$name: console" "$(head -3 "$tmp/$name.console")"
    if [ "$(head -c 8 "$tmp/$name.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
        [ "$(stat -c %s "$tmp/$name.png")" -gt 20000 ]; then
        pass "$name: a screenshot"
    else
        fail "$name: screenshot" "not a PNG of a drawn page: $(ls -l "$tmp/$name.png" 2>&1)"
    fi
}

# --- a campaign's page: fpdiv report on its corpus and JSON Lines ---
run "fuzz for the report" 0 $FPDIV fuzz --seed 5 --cases 300 --backends seq,pairwise,blocked --dtypes f32,bf16 \
    --corpus $tmp/corpus --json
cp $tmp/out $tmp/run.jsonl
cases=$(find $tmp/corpus -name '*.json' | wc -l)
[ "$cases" -gt 0 ] && pass "the campaign saved cases ($cases)" || fail "campaign" "nothing saved"
run "report" 0 $FPDIV report $tmp/corpus --campaign $tmp/run.jsonl -o $tmp/report.html &&
    expect "report says what it wrote" "$out" "wrote .*report.html: $cases cases, and the campaign"
render $tmp/report.html report
checked report --summary $tmp/run.jsonl --cases "$cases" --js on
# with JavaScript off a browser has the page as written: all of it, only the copy buttons hidden
if problems=$($dom_check $tmp/report.html --summary $tmp/run.jsonl --cases "$cases" --js off); then
    pass "report: whole without JavaScript"
else
    fail "report: without JavaScript" "$problems"
fi
expect "report: the copy buttons show only with JavaScript" "$(cat $tmp/report.html)" "\.js button\.copy\{display:inline\}"
expect "report: a finding's replay command" "$(cat $tmp/report.html)" "<pre class='command'>fpdiv replay $tmp/corpus/"
expect "report: each case's paths, as show describes them" "$(cat $tmp/report.html)" \
    "<tr><th>path B</th><td>(seq|pairwise|blocked): gemm [0-9x]+, (f32|bf16) in, f32 out"
expect "report: each case's distance from the correctly rounded result, as saved" "$(cat $tmp/report.html)" \
    "<tr><th>from the correctly rounded result</th><td>path A [0-9.e+]+ ulp, path B [0-9.e+]+ ulp; each against its own bound"
expect "report: only the XML namespace names a web address" \
    "$(grep -o 'https\?://[^ '"'"'"]*' $tmp/report.html | sort -u | tr '\n' ' ')" '^http://www.w3.org/2000/svg $'

# --- a replay on the page: an upgrade's effect, case by case ---
# two cases edited as if recorded otherwise: other bits (changed), `same` (worse now)
cp -r $tmp/corpus $tmp/replayed
edited=($(find $tmp/replayed -name '*.json' | sort | head -2))
python3 - "${edited[@]}" <<'PY'
import json, sys
for path, edit in zip(sys.argv[1:], ("hash", "verdict")):
    d = json.load(open(path))
    if edit == "hash":
        d["outcome"]["hash_a"] = "0123456789abcdef"
    else:
        d["outcome"].update(verdict="same", diff=0, max_ulp=0, ratio=0.0, hash_b=d["outcome"]["hash_a"])
    open(path, "w").write(json.dumps(d))
PY
run "replay for the report" 1 $FPDIV replay $tmp/replayed --json
cp $tmp/out $tmp/replay.jsonl
expect "the replay has a changed and a worse case" "$(grep -o '"class":"[a-z]*"' $tmp/replay.jsonl | sort | uniq -c | tr '\n' ' ')" \
    '"changed".*"worse"'
run "report --replay" 0 $FPDIV report $tmp/replayed --replay $tmp/replay.jsonl -o $tmp/replay.html &&
    expect "report says it has the replay" "$out" "wrote .*replay.html: $cases cases, and the replay"
render $tmp/replay.html replay
checked replay --replay $tmp/replay.jsonl --cases "$cases" --js on
expect "replay: a case's own line links to it" "$(cat $tmp/replay.html)" "<a href='#case-[0-9]+'>$tmp/replayed/"
run "replay --html" 1 $FPDIV replay $tmp/replayed --html $tmp/replay2.html &&
    expect "replay --html says where" "$out" "report .*replay2.html: the replay and $cases saved cases"
render $tmp/replay2.html replay2
checked replay2 --replay $tmp/replay.jsonl --cases "$cases" --js on
printf '{"type":"replay","file":"x.json","class":"better","recorded":"reorder"}\n' >$tmp/badclass.jsonl
bad "a replay line with a class that is none" "badclass.jsonl:1: a replay line without \"class\"" \
    report $tmp/corpus --replay $tmp/badclass.jsonl -o $tmp/kept.html

# --- fuzz --html: the same page from the run itself ---
run "fuzz --html" 0 $FPDIV fuzz --seed 5 --cases 300 --backends seq,pairwise,blocked --dtypes f32,bf16 \
    --corpus $tmp/corpus2 --html $tmp/fuzz.html --json
grep '"type":"summary"' $tmp/out >$tmp/fuzz-summary.jsonl
render $tmp/fuzz.html fuzz
checked fuzz --summary $tmp/fuzz-summary.jsonl --cases "$(find $tmp/corpus2 -name '*.json' | wc -l)" --js on
run "fuzz --html --no-corpus" 0 $FPDIV fuzz --seed 5 --cases 40 --no-corpus --html $tmp/nocorpus.html &&
    expect "fuzz --html says where" "$out" "report .*nocorpus.html: the campaign and 0 saved cases"
expect "fuzz --html --no-corpus: the page says so" "$(cat $tmp/nocorpus.html)" "no corpus: the campaign saved nothing"
run "fuzz --html into a directory to be made (as --corpus's is)" 0 $FPDIV fuzz --seed 5 --cases 10 --no-corpus \
    --html $tmp/missing/f.html && [ -s $tmp/missing/f.html ] && pass "the page is in the directory made for it"
bad "fuzz --html under a file, before the run" "--html $tmp/nocorpus.html is not a directory" \
    fuzz --seed 5 --cases 10 --no-corpus --html $tmp/nocorpus.html/f.html

# --- a hostile case file: its strings are text, never markup ---
mkdir -p $tmp/hostile/addmm
first=$(find $tmp/corpus -name '*.json' | sort | head -1)
python3 - "$first" $tmp/hostile/addmm/$(basename "$first") <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
env = d["environment"]
env["cpu"]["model"] = "<script>alert(1)</script>\"'</svg></table>"
env["cpu"]["isa"] = "x86-64 <!-- <style>body{display:none}</style>"
for b in env["backends"].values():
    b["version"] = "</svg><img src=x onerror=alert(2)>&amp;"
    b["kernel_set"] = "]]><svg onload=alert(3)>"
open(sys.argv[2], "w").write(json.dumps(d))
PY
run "report of a hostile case" 0 $FPDIV report $tmp/hostile -o $tmp/hostile.html
render $tmp/hostile.html hostile
checked hostile --cases 1 --js on --text "<script>alert(1)</script>\"'</svg></table>" \
    --text "</svg><img src=x onerror=alert(2)>&amp;" --text "]]><svg onload=alert(3)>" \
    --text "x86-64 <!-- <style>body{display:none}</style>"

# --- sweeps, bisections and trees saved beside the corpus (--save-to), drawn by report ---
cp -r $tmp/corpus $tmp/saved
sweep_args=(sweep --relation vendor --backend seq,pairwise --shape 16x16x1 --vary k --range 1:1025:64 --save-to $tmp/saved)
run "sweep --save-to" 0 $FPDIV "${sweep_args[@]}" &&
    expect "sweep says where it saved" "$out" "^saved $tmp/saved/results/sweep/[0-9a-f]{16}\.json$"
run "the same sweep saved again" 0 $FPDIV "${sweep_args[@]}" &&
    expect "the same sweep: already saved" "$out" "^already saved: $tmp/saved/results/sweep/[0-9a-f]{16}\.json$"
[ "$(ls $tmp/saved/results/sweep | wc -l)" -eq 1 ] && pass "the same sweep is one file" ||
    fail "one file" "$(ls $tmp/saved/results/sweep)"
run "bisect --scan --save-to" 0 $FPDIV bisect --relation vendor --backend seq,tc-a100 --dtype f16:f32 --good 8x8x1 \
    --bad 8x8x64 --scan --save-to $tmp/saved && expect "bisect --scan saved" "$out" "^saved $tmp/saved/results/bisect/"
run "bisect --save-to" 0 $FPDIV bisect --relation vendor --backend seq,tc-a100 --dtype f16:f32 --good 8x8x1 \
    --bad 8x8x64 --save-to $tmp/saved
run "explain --save-to" 0 $FPDIV explain --backend pairwise --shape 1x1x12 --save-to $tmp/saved
# a case of two terms or more, whose order has a name: one term's is "a single term"
sum_case=$(grep -L '"k": [01],' $(find $tmp/corpus -name '*.json' | sort) | head -1)
run "explain CASE --save-to" 0 $FPDIV explain "$sum_case" --save-to $tmp/saved
saved_file=$(ls $tmp/saved/results/bisect/*.json | head -1)
expect "a saved result holds the command that made it" "$(cat $saved_file)" \
    "\"command\": \"fpdiv bisect --relation vendor --backend seq,tc-a100 "
run "replay passes over results/" 0 $FPDIV replay $tmp/saved --json &&
    expect "replay: the cases, not the results" "$(grep -c '"type":"replay"' <<<"$out")" "^$cases$"
run "report with saved results" 0 $FPDIV report $tmp/saved --campaign $tmp/run.jsonl -o $tmp/saved.html &&
    expect "report counts the saved results" "$out" "wrote .*saved.html: $cases cases, and the campaign, 5 saved results"
render $tmp/saved.html saved
checked saved --summary $tmp/run.jsonl --cases "$cases" --js on --saved sweep=1 --saved bisect=2 --saved explain=2 \
    --text "path A: sequential over k" --text "(the documented order of pairwise)"
expect "saved: each with its command" "$(cat $tmp/saved.html)" "<pre class='command'>fpdiv explain --backend pairwise --shape 1x1x12"

# --- sorting and filtering, from the page's address ---
filter=bf16
want_shown=$(grep -c "<h3>[^<]*$filter" $tmp/report.html)
render "$tmp/report.html#filter=$filter&sort=summary-table.4.desc" sorted
checked sorted --cases "$cases" --shown "$want_shown" --sorted summary-table.4.desc --js on
render "$tmp/report.html#sort=summary-table.2.asc" sorted2
checked sorted2 --sorted summary-table.2.asc --shown "$cases" --js on

# --- saved results from elsewhere: bad ones stop the report, nothing is written through a link ---
mkdir -p $tmp/badsaved/results/sweep
printf '{"schema": 1,\n "kind": }\n' >$tmp/badsaved/results/sweep/0000000000000000.json
bad "a saved result that is not JSON: file, line and column" "sweep/0000000000000000.json:2:[0-9]+: " \
    report $tmp/badsaved -o $tmp/kept.html
mkdir -p $tmp/cycle/results/explain
# the 1x1x12 tree: the other explain result is of whatever case this CPU's campaign saved first,
# whose tree may hold fewer than three additions
python3 - $(grep -l 'explain --backend pairwise --shape 1x1x12' $tmp/saved/results/explain/*.json) \
    $tmp/cycle/results/explain/0000000000000000.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
parent = d["trees"][0]["tree"]["parent"]
first = d["trees"][0]["tree"]["terms"] + (1 if d["trees"][0]["tree"]["bias"] else 0)
parent[first + 1], parent[first + 2] = first + 2, first + 1  # two additions each other's operand
open(sys.argv[2], "w").write(json.dumps(d))
PY
bad "a saved tree with a cycle" "0000000000000000.json: a saved explain result: trees\[0\]: " \
    report $tmp/cycle -o $tmp/kept.html
mkdir -p $tmp/wrongkind/results/bisect
cp $tmp/saved/results/sweep/*.json $tmp/wrongkind/results/bisect/
bad "a saved result in another kind's directory" "a saved bisect result: \"kind\": not the kind" \
    report $tmp/wrongkind -o $tmp/kept.html
mkdir -p $tmp/badprobe/results/sweep
python3 - $tmp/saved/results/sweep/*.json $tmp/badprobe/results/sweep/0000000000000000.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["probes"][3]["verdict"] = "<script>"
open(sys.argv[2], "w").write(json.dumps(d))
PY
bad "a saved probe with a verdict that is none" "probes\[3\]\.verdict: missing or malformed" \
    report $tmp/badprobe -o $tmp/kept.html
mkdir -p $tmp/hostilesaved/results/sweep
python3 - $tmp/saved/results/sweep/*.json $tmp/hostilesaved/results/sweep/0000000000000000.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["title"] = "<script>alert(4)</script>"
d["dim"] = "</svg><b>k"
d["command"] = "fpdiv sweep '</pre><img src=x onerror=alert(5)>'"
d["environment"]["cpu"]["model"] = "<!-- \"'"
d["probes"][0] = {"value": 1, "skipped": "<i>no</i>"}
open(sys.argv[2], "w").write(json.dumps(d))
PY
run "report of a hostile saved result" 0 $FPDIV report $tmp/hostilesaved -o $tmp/hostilesaved.html
render $tmp/hostilesaved.html hostilesaved
checked hostilesaved --cases 0 --saved sweep=1 --js on --text "<script>alert(4)</script>" --text "</svg><b>k" \
    --text "fpdiv sweep '</pre><img src=x onerror=alert(5)>'" --text "<!-- \"'"
mkdir -p $tmp/elsewhere $tmp/linked
ln -s $tmp/elsewhere $tmp/linked/results
bad "report: a link where results/ should be" "linked/results: a symbolic link" \
    report $tmp/linked -o $tmp/kept.html
bad "--save-to through a link: refused" "results: a symbolic link or a file where the corpus needs its own directory" \
    "${sweep_args[@]:0:${#sweep_args[@]}-1}" $tmp/linked
[ -z "$(ls -A $tmp/elsewhere)" ] && pass "nothing written through the link" || fail "through the link" "$(ls -R $tmp/elsewhere)"

# --- bad input: exit 2, a message naming what is wrong, the page left as it was ---
echo "an earlier page" >$tmp/kept.html
printf '{"type":"campaign","seed":1}\n{"type":"check", "relation": }\n' >$tmp/broken.jsonl
bad "a campaign line that is not JSON: file, line and column" "broken.jsonl:2:[0-9]+: " \
    report $tmp/corpus --campaign $tmp/broken.jsonl -o $tmp/kept.html
printf '{"a": 1}\n' >$tmp/other.jsonl
bad "JSON Lines that are not a campaign's" "other.jsonl: no line of 'fpdiv fuzz --json'" \
    report $tmp/corpus --campaign $tmp/other.jsonl -o $tmp/kept.html
printf '{"type":"check","relation":"addmm"}\n' >$tmp/noratio.jsonl
bad "a check line without its ratio" "noratio.jsonl:1: a check line without \"ratio\"" \
    report $tmp/corpus --campaign $tmp/noratio.jsonl -o $tmp/kept.html
check_line=$(grep -m1 '"type":"check"' $tmp/run.jsonl)
printf '%s\n%s\n' "$check_line" "${check_line/\"shape\":\"/\"shape\":\"0x}" >$tmp/badshape.jsonl
bad "a check line with a shape that is none" "badshape.jsonl:2: a check line without \"shape\"" \
    report $tmp/corpus --campaign $tmp/badshape.jsonl -o $tmp/kept.html
printf '%s\n' "${check_line/\"verdict\":\"/\"verdict\":\"x}" >$tmp/badverdict.jsonl
bad "a check line with a verdict that is none" "badverdict.jsonl:1: a check line without \"verdict\"" \
    report $tmp/corpus --campaign $tmp/badverdict.jsonl -o $tmp/kept.html
mkdir -p $tmp/badcorpus/addmm
cp "$first" $tmp/badcorpus/addmm/
printf '{"schema": 2,\n "check": [}\n' >$tmp/badcorpus/addmm/0000000000000000.json
bad "a malformed case file: file, line and column" "0000000000000000.json:2:[0-9]+: " \
    report $tmp/badcorpus -o $tmp/kept.html
bad "no -o" "-o FILE is required" report $tmp/corpus
bad "no corpus directory" "expected 1 argument" report -o $tmp/kept.html
bad "a corpus that is not there" "$tmp/nothere" report $tmp/nothere -o $tmp/kept.html
[ "$(cat $tmp/kept.html)" = "an earlier page" ] && pass "the earlier page is untouched" ||
    fail "kept page" "$(head -c 200 $tmp/kept.html)"
[ -z "$(find $tmp -maxdepth 1 -name 'kept.html.*')" ] && pass "no temporary file left" ||
    fail "temporary files" "$(ls $tmp)"

echo
echo "report: $passed passed, $failed failed"
[ $failed -eq 0 ]
