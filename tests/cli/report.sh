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
        d["outcome"].update(verdict="same", diff=0, ratio=0.0)
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
bad "fuzz --html into a missing directory, before the run" "--html $tmp/missing/f.html: cannot write into its directory" \
    fuzz --seed 5 --cases 10 --no-corpus --html $tmp/missing/f.html

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
