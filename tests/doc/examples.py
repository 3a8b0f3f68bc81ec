#!/usr/bin/env python3
"""Every command the README and doc/ show is run, and its output compared in shape with the page.

A page shows commands in ```console blocks, as a terminal shows them:

    $ fpdiv check --relation slice-rows --backend openblas --core Prescott --shape 2x1000x1000
    check slice-rows on openblas@Prescott: reorder, 1873 of 2000 elements differ …
    ...
    (exit 1)

- `$ ` starts a command (a trailing backslash continues it on the next line); it runs in bash, in
  a directory of the page's own that holds the corpus as committed (corpus/), with `fpdiv` on PATH
  being the fpdiv under test, and `python3` the Python environment's (.venv), which has the frameworks. A page's commands run in order, in one directory: a later one may
  read what an earlier one wrote.
- The lines up to the next command are its output (stdout and stderr together, as a terminal
  shows them), compared in shape: every number (integer, decimal, hex float, exponent) matches
  any number, a run of spaces any run of spaces, `…` any text within a line, a line `...` any
  number of lines (none included). Everything else must be as shown: the words, the verdicts, the
  order of the lines.
- The exit status must be 0, or the one a last line `(exit N)` gives.

No other block may hold commands to type: ```sh, ```bash and ```shell blocks are refused, except
the README's quick start (two commands, which .ci/run runs as they stand) and a script shown whole
(its first line `#!`), which is checked with `bash -n`. Other blocks (YAML, JSON, Python, C) are
text.

Usage: FPDIV=build/fpdiv tests/doc/examples.py [PAGE.md ...]   (default: README.md and doc/*.md)
Prints a PASS or FAIL line per command and exits 1 if any failed.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^```(\S*)\s*$")
SHELL_LANGUAGES = ("sh", "bash", "shell", "zsh")
# a number as fpdiv prints one: a hex float (0x1.8p+1), a decimal with an exponent, a percentage's
# digits, a count with thousands separators
NUMBER = r"[-+]?(?:0x[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?p[-+]?\d+|(?:\d[\d,]*)?\.?\d+(?:[eE][-+]?\d+)?|inf|nan)"
# a content hash (a case file's name): 16 hex digits, whatever they are
HASH = r"[0-9a-f]{16}"
# either, as a token of its own: the digits of f32, tc-h100 or 2x1000 are words, not numbers
TOKEN = re.compile(r"(?<![A-Za-z0-9_.])(?:(?P<hash>" + HASH + r")|(?P<number>" + NUMBER + r"))(?![A-Za-z0-9_])")
COMMAND_TIMEOUT = 300


class Example:
    def __init__(self, page, line, command):
        self.page, self.line, self.command = page, line, command
        self.expected, self.status = [], 0

    def where(self):
        return f"{os.path.relpath(self.page, ROOT)}:{self.line}"


def line_pattern(text):
    """A shown output line as a regular expression of its shape."""
    out = []
    for k, piece in enumerate(text.split("…")):
        if k:
            out.append(".*")
        pos = 0
        for m in TOKEN.finditer(piece):
            out.append(literal(piece[pos:m.start()]))
            out.append(HASH if m.group("hash") else NUMBER)
            pos = m.end()
        out.append(literal(piece[pos:]))
    return re.compile("".join(out))


def literal(text):
    return r"\s+".join(re.escape(part) for part in re.split(r"\s+", text)) if text.strip() else (r"\s*" if text else "")


def parse(page):
    """The examples of a page, and the breaches of its rules about blocks."""
    examples, breaches = [], []
    with open(page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    readme = os.path.basename(page) == "README.md" and os.path.dirname(os.path.abspath(page)) == ROOT
    section = ""
    i = 0
    while i < len(lines):
        if lines[i].startswith("## "):
            section = lines[i][3:]
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        language, start = m.group(1), i + 1
        end = start
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        if end == len(lines):
            breaches.append(f"{os.path.relpath(page, ROOT)}:{i + 1}: a code block that is never closed")
            break
        body = lines[start:end]
        where = f"{os.path.relpath(page, ROOT)}:{i + 1}"
        if language == "console":
            examples += parse_console(page, start, body, breaches)
        elif language in SHELL_LANGUAGES:
            if body and body[0].startswith("#!"):
                script = "\n".join(body) + "\n"
                check = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
                if check.returncode:
                    breaches.append(f"{where}: the script does not parse: {check.stderr.strip()}")
            elif not (readme and section.startswith("Quick start") and len(body) == 2):
                breaches.append(f"{where}: a ```{language} block of commands: show them in a ```console block "
                                "($ before each, then its output), so that tests/doc/examples.py runs them")
        i = end + 1
    return examples, breaches


def parse_console(page, start, body, breaches):
    examples, current = [], None
    i = 0
    while i < len(body):
        text = body[i]
        if text.startswith("$ "):
            command, line = text[2:], start + i + 1
            while command.endswith("\\") and i + 1 < len(body):
                i += 1
                command = command + "\n" + body[i]  # bash joins a backslash-newline itself
            current = Example(page, line, command)
            examples.append(current)
        elif current is None:
            if text.strip():
                breaches.append(f"{os.path.relpath(page, ROOT)}:{start + i + 1}: output before any command")
        else:
            m = re.fullmatch(r"\(exit (\d+)\)", text.strip())
            if m:
                current.status = int(m.group(1))
            else:
                current.expected.append(text)
        i += 1
    for e in examples:
        while e.expected and not e.expected[-1].strip():
            e.expected.pop()
    return examples


def matches(expected, actual):
    """Whether the actual lines have the shape of the expected ones; else the first expected line
    that found no match, with what stood there."""
    memo = {}

    def go(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i].strip() == "...":
            result = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and bool(line_pattern(expected[i].rstrip()).fullmatch(actual[j].rstrip())) \
                and go(i + 1, j + 1)
        memo[key] = result
        return result

    if go(0, 0):
        return None
    # the first line that does not fit, for the message: the longest run that matched
    j = 0
    for i, want in enumerate(expected):
        if want.strip() == "...":
            return "after a '...', the lines that follow it are not in the output"
        if j >= len(actual):
            return f"line {i + 1}, {want!r}: the output has only {len(actual)} lines"
        if not line_pattern(want.rstrip()).fullmatch(actual[j].rstrip()):
            return f"line {i + 1}: shown {want!r}, printed {actual[j]!r}"
        j += 1
    return f"the output goes on past what the page shows: {actual[j]!r}"


def sandbox(fpdiv):
    """A directory for one page's commands: the committed corpus, and fpdiv on PATH."""
    top = tempfile.mkdtemp(prefix="fpdiv-doc-")
    work = os.path.join(top, "work")
    subprocess.run([os.path.join(ROOT, "tests", "committed-corpus.sh"), work], check=True, capture_output=True)
    bindir = os.path.join(top, "bin")
    os.mkdir(bindir)
    os.symlink(os.path.abspath(fpdiv), os.path.join(bindir, "fpdiv"))
    return top, work, bindir


def main():
    fpdiv = os.environ.get("FPDIV", os.path.join(ROOT, "build", "fpdiv"))
    pages = sys.argv[1:] or [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "doc", "*.md")))
    passed = failed = 0
    for page in pages:
        examples, breaches = parse(page)
        for b in breaches:
            print(f"FAIL {b}")
        failed += len(breaches)
        if not examples:
            continue
        top, work, bindir = sandbox(fpdiv)
        # python3 is the Python environment's scripts/install-deps.sh made (NumPy, PyTorch, JAX), as
        # a user's own is where a page saves arrays from a framework (doc/judge.md)
        venv = os.path.join(ROOT, ".venv", "bin")
        path = os.pathsep.join([bindir] + ([venv] if os.path.isdir(venv) else []) + [os.environ["PATH"]])
        env = dict(os.environ, PATH=path, FPDIV_DOC_ROOT=ROOT)
        try:
            for e in examples:
                name = f"{e.where()} $ {e.command.splitlines()[0]}"
                try:
                    run = subprocess.run(["bash", "-c", e.command], cwd=work, env=env, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True, errors="replace",
                                         timeout=COMMAND_TIMEOUT)
                except subprocess.TimeoutExpired:
                    print(f"FAIL {name}: still running after {COMMAND_TIMEOUT} s")
                    failed += 1
                    continue
                actual = run.stdout.rstrip("\n").split("\n") if run.stdout.strip() else []
                problem = None
                if run.returncode != e.status:
                    problem = f"exit {run.returncode}, the page shows {e.status}"
                else:
                    problem = matches(e.expected, actual)
                if problem:
                    failed += 1
                    print(f"FAIL {name}: {problem}")
                    print("  printed:\n" + "\n".join("    " + a for a in actual[:40]))
                else:
                    passed += 1
                    print(f"PASS {name}")
        finally:
            shutil.rmtree(top, ignore_errors=True)
    print(f"doc examples: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
