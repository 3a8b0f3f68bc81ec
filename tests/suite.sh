#!/usr/bin/env bash
# One suite of `make test`, and how long it took: CI's time is bounded, and its log then shows
# which suite grew. Usage: tests/suite.sh NAME CMD...
name=$1
shift
start=$SECONDS
"$@"
status=$?
echo "suite $name: $((SECONDS - start)) s$([ $status -eq 0 ] || echo ", failed (exit $status)")"
exit $status
