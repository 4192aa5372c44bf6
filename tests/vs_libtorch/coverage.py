#!/usr/bin/env python3
"""The differential suite's coverage of schemas/ops.yaml, as a ratchet.

    coverage.py --ops schemas/ops.yaml --cases tests/vs_libtorch [--todo coverage_todo.txt] [--update]

An ops.yaml entry counts as covered when some cases_*.cpp calls its C++ spelling: `name(` as a
function or method for a functional entry, `name_(` for an in-place one, `name_out(`/`name_outf(`
for an out= one (overloads of one name share the spelling, so one call covers them all). The
entries not covered yet are listed in coverage_todo.txt; the test fails when an entry is neither
covered nor listed (a new operator needs a case) and when a listed entry is covered (take it off
the list, so the list only shrinks). --update rewrites the list.
"""
import argparse
import glob
import os
import re
import sys

import yaml


def spellings(func: str) -> tuple[str, list[str]]:
    head = func.split("(", 1)[0]
    name, _, overload = head.partition(".")
    args = func.split("->", 1)[0]
    # An out= entry: keyword-only mutable tensors (after the `*`), not an in-place method.
    is_out = "*" in args and re.search(r"\*.*Tensor\([a-z]!\)", args) is not None
    if is_out and not name.endswith("_"):
        return head, [name + "_out", name + "_outf"]
    return head, [name]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--todo")
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    todo_path = args.todo or os.path.join(args.cases, "coverage_todo.txt")

    with open(args.ops) as f:
        entries = yaml.safe_load(f)
    text = ""
    for p in sorted(glob.glob(os.path.join(args.cases, "cases_*.cpp"))):
        with open(p) as f:
            text += f.read()
    called = set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", text))

    uncovered = []
    for e in entries:
        head, names = spellings(e["func"])
        if not any(n in called for n in names):
            uncovered.append(head)
    total = len(entries)

    if args.update:
        with open(todo_path, "w") as f:
            f.write("# ops.yaml entries no differential case calls yet (tests/vs_libtorch/coverage.py).\n")
            f.write("".join(u + "\n" for u in sorted(uncovered)))
        print(f"coverage: {total - len(uncovered)}/{total} entries covered; wrote {todo_path}")
        return 0

    with open(todo_path) as f:
        todo = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    new = sorted(set(uncovered) - todo)
    done = sorted(todo - set(uncovered))
    print(f"coverage: {total - len(uncovered)}/{total} ops.yaml entries called by a case; "
          f"{len(todo)} listed as not yet covered")
    for n in new:
        print(f"  NOT COVERED and not listed: {n} (add a case, or list it in {os.path.basename(todo_path)})")
    for n in done:
        print(f"  covered but still listed: {n} (take it off {os.path.basename(todo_path)})")
    return 1 if new or done else 0


if __name__ == "__main__":
    sys.exit(main())
