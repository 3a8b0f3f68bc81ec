#!/usr/bin/env bash
# The corpus as the repository commits it, copied into DEST (which must not exist), whatever a
# user's campaigns have added to corpus/ since: the suites replay and export these cases, so that
# `fpdiv fuzz` (which saves into corpus/ by default) never makes the tests fail. In a git checkout
# the committed cases are what git tracks under corpus/; elsewhere (an unpacked archive) every case
# under corpus/ is taken, and that is said. Prints DEST.
# Usage: tests/committed-corpus.sh DEST [ROOT, default: this repository]
set -eu
dest=${1:?usage: tests/committed-corpus.sh DEST [ROOT]}
root=${2:-$(cd "$(dirname "$0")/.." && pwd)}
[ ! -e "$dest" ] || { echo "committed-corpus: $dest exists; give a new directory" >&2; exit 2; }
mkdir -p "$dest"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ -n "$(git -C "$root" ls-files corpus)" ]; then
    git -C "$root" ls-files -z corpus | (cd "$root" && xargs -0 cp --parents -t "$dest")
else
    echo "committed-corpus: $root is no git checkout: every case under corpus/ is taken" >&2
    (cd "$root" && find corpus -name '*.json' -type f -print0 | xargs -0 -r cp --parents -t "$dest")
fi
echo "$dest/corpus"
