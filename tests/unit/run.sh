#!/usr/bin/env bash
# The unit tests, failing on a leak too: Criterion runs each test in a child process, and a leak
# LeakSanitizer reports when that child exits does not fail the test (it has already passed), so
# under SANITIZE=1 a leak would go by in silence. This fails the suite when one is reported.
# Usage: tests/unit/run.sh UNIT_TESTS [criterion options...]
set -u
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$log"; then
    echo "unit tests: LeakSanitizer reported $(grep -c 'ERROR: LeakSanitizer: detected memory leaks' "$log") leak report(s) above"
    status=1
fi
exit "$status"
