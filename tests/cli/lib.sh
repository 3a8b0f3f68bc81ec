# Helpers of the CLI suites (run.sh, hostile.sh): each sources this after setting FPDIV and tmp.
passed=0 failed=0

# run NAME WANT_EXIT CMD...: runs CMD, keeps stdout in $out and stderr in $err
run() {
    local name=$1 want=$2 started=$EPOCHREALTIME
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    # FPDIV_TEST_TIMES=FILE: each command's seconds, to find what makes a suite slow
    [ -n "${FPDIV_TEST_TIMES:-}" ] && awk -v a="$started" -v b="$EPOCHREALTIME" -v n="$name" 'BEGIN { printf "%.2f %s\n", b - a, n }' >>"$FPDIV_TEST_TIMES"
    # LeakSanitizer's own tracer can crash at a sanitized process's exit ("Tracer caught signal
    # 11 ... LeakSanitizer has encountered a fatal error", google/sanitizers#1353): its runtime's
    # failure, not a leak (a leak reads "detected memory leaks"). In CI it struck `replay` of the
    # suite's corpus in two runs of three, again when run at once, and never here in 17 runs. Run
    # it again, once, without the exit-time leak check that crashed, and say so: the command's
    # exit and output are still checked, the leak check in every other command.
    if [ "$got" -ne "$want" ] && grep -q "LeakSanitizer has encountered a fatal error" "$tmp/err"; then
        echo "NOTE $name: LeakSanitizer's tracer crashed at exit (google/sanitizers#1353): run again without it"
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@" >"$tmp/out" 2>"$tmp/err"
        got=$?
    fi
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
    if [ "$got" -ne "$want" ]; then
        fail "$name" "exit $got, want $want; stderr: ${err:0:300}"
        return 1
    fi
    return 0
}
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
# expect NAME TEXT PATTERN: grep -E PATTERN in TEXT
expect() {
    if grep -qE -- "$3" <<<"$2"; then pass "$1"; else fail "$1" "no match for /$3/ in: ${2:0:400}"; fi
}
# checks_and_passed_over TEXT: a fuzz summary's checks run plus those that did not apply
checks_and_passed_over() { awk '/^[0-9]+ checks in / { n += $1 } /^did not apply: / { n += $4 } END { print n + 0 }' <<<"$1"; }
json_field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())[sys.argv[1]])' "$1"; }
# bad NAME PATTERN ARGS...: fpdiv ARGS exits 2 with PATTERN on stderr
bad() { # NAME PATTERN ARGS...
    local name=$1 pattern=$2
    shift 2
    run "$name" 2 $FPDIV "$@" && expect "$name: message" "$err" "$pattern"
}

