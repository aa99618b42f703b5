#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the examples of the documentation, so that the pages cannot drift from the program.

Usage: run_doc_examples.py GVK_BINARY SOURCE_DIR PAGE.md ...

A runnable example is a fenced block whose info string is `console`. In it, a line starting with
`$ ` is a command (a line ending in a backslash continues on the next one); the lines after it, up
to the next command or the end of the block, are its expected standard output. A line `...` in the
expected output stands for any number of lines; trailing blanks are not compared, nor is standard
error (summary lines carry timings). An HTML comment `<!-- not-run: REASON -->` on the line before
the fence marks a block that needs what a test machine may lack (a GPU, MPI, Java, a network); it
is listed with its reason. `<!-- needs: htslib -->` runs the block only where `gvk --version`
reports htslib, and lists it otherwise.

Each command runs in a shell of its own (`bash -eu`: files persist between the commands of a page,
variables do not, and an unset one is an error), in a fresh directory per page, in page order, where `tests` links to the
source tree's tests/ (the bundled data) and the directory of GVK_BINARY comes first in PATH, so
`gvk` is the binary under test. A command that exits non-zero, or whose output differs, fails the
test; so does a page without any example when named on the command line, and a ```sh block (whose
commands would escape the test). Commands run with
`bash -e`, without pipefail, so `gvk ... | head` is not failed by the broken pipe; a failing gvk
there still changes the output."""
import difflib
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*(\S*)")
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(.*?)\s*-->")
NEEDS = re.compile(r"<!--\s*needs:\s*(\S+)\s*-->")


def blocks(text):
    """Yields (line number, info string, reason or None, lines) for every fenced block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(2), m.group(3), i
        prev = lines[i - 1] if i > 0 else ""
        reason = NOT_RUN.search(prev)
        needs = NEEDS.search(prev)
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(m.group(1)):] if lines[i].startswith(m.group(1)) else lines[i])
            i += 1
        i += 1
        yield start + 1, info, reason.group(1) if reason else None, needs.group(1) if needs else None, body


def commands(body):
    """Splits a console block into (command, expected output lines)."""
    out, cmd, exp = [], None, []
    k = 0
    while k < len(body):
        line = body[k]
        if line.startswith("$ "):
            if cmd is not None:
                out.append((cmd, exp))
            cmd, exp = line[2:], []
            while cmd.endswith("\\") and k + 1 < len(body):
                k += 1
                cmd = cmd + "\n" + body[k]
        elif cmd is not None:
            exp.append(line)
        k += 1
    if cmd is not None:
        out.append((cmd, exp))
    return out


def matches(expected, got):
    """Expected lines against output lines, '...' matching any run of lines."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(matches(expected[1:], got[j:]) for j in range(len(got) + 1))
    return bool(got) and expected[0].rstrip() == got[0].rstrip() and matches(expected[1:], got[1:])


def main():
    gvk, src, pages = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]
    env = dict(os.environ, PATH=os.path.dirname(gvk) + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C")
    env.pop("GVK_VERBOSE", None)
    version = subprocess.run([gvk, "--version"], stdout=subprocess.PIPE, text=True).stdout
    have = {"htslib": re.search(r"^htslib: \d", version, re.M) is not None}
    ran = failed = 0
    not_run = []
    for page in pages:
        path = os.path.join(src, page)
        found = 0
        with tempfile.TemporaryDirectory(prefix="gvk-docs-") as work:
            os.symlink(os.path.join(src, "tests"), os.path.join(work, "tests"))
            for lineno, info, reason, needs, body in blocks(open(path, encoding="utf-8").read()):
                if info in ("sh", "bash", "shell"):
                    failed += 1
                    print(f"FAIL {page}:{lineno}: a ```{info} block: commands go in ```console blocks, run or not-run")
                    continue
                if info != "console":
                    continue
                found += 1
                where = f"{page}:{lineno}"
                if needs and not have.get(needs, False):
                    reason = f"this gvk was built without {needs}"
                if reason:
                    not_run.append(f"{where}: {reason}")
                    continue
                for cmd, exp in commands(body):
                    ran += 1
                    r = subprocess.run(["bash", "-eu", "-c", cmd], cwd=work, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
                    got = r.stdout.split("\n")
                    if got and got[-1] == "":
                        got.pop()
                    if r.returncode != 0:
                        failed += 1
                        print(f"FAIL {where}: `{cmd}` exited {r.returncode}\n{r.stderr[-2000:]}")
                    elif exp and not matches(exp, got):
                        failed += 1
                        diff = "\n".join(difflib.unified_diff(exp, got, "shown", "actual", lineterm=""))
                        print(f"FAIL {where}: `{cmd}` printed something else\n{diff}")
                    else:
                        print(f"ok   {where}: {cmd.splitlines()[0]}")
        if not found:
            failed += 1
            print(f"FAIL {page}: no console example")
    for line in not_run:
        print(f"not run {line}")
    print(f"docs examples: {ran} commands run, {failed} failed, {len(not_run)} blocks not run")
    return 1 if failed or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
