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
if [ "$(id -u)" != 0 ]; then
    mkdir -p $tmp/t5/ro && chmod 555 $tmp/t5/ro
    run "fuzz into a read-only corpus fails the run" 3 $FPDIV fuzz --seed 11 --cases 60 --max-dim 16 --relations addmm --backends seq --corpus $tmp/t5/ro
    chmod 755 $tmp/t5/ro
else
    echo "SKIP a read-only corpus: root writes anywhere (the file size limit above fails the saves instead)"
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

echo
echo "hostile: $passed passed, $failed failed"
[ $failed -eq 0 ]
