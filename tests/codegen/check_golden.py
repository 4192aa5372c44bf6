#!/usr/bin/env python3
"""The codegen_golden test: gen.py's output for golden_ops.yaml must equal tests/codegen/golden/.

    check_golden.py --gen tools/codegen/gen.py --yaml tests/codegen/golden_ops.yaml \
                    --golden tests/codegen/golden --work BUILD_DIR/codegen_golden

Also checks that a second run rewrites nothing (incremental builds) and that gen.py rejects bad
entries with a message naming the entry. After an intended change to gen.py, regenerate with
    python3 tools/codegen/gen.py --yaml tests/codegen/golden_ops.yaml --out tests/codegen/golden
and review the diff.
"""
import argparse
import difflib
import os
import shutil
import subprocess
import sys

# (yaml text, a fragment the error must contain)
BAD_ENTRIES = [
    ("- func: f(Tensor self, Generator g) -> Tensor\n", "unsupported type 'Generator'"),
    ("- func: f(Tensor(a!)[] self) -> ()\n", "unsupported type 'Tensor[]' (mutable)"),
    ("- func: f(int x) -> Tensor\n  variants: method\n", "needs a 'Tensor self'"),
    ("- func: f(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  variants: function, method\n",
     "out= operators are functions only"),
    ("- func: f(Tensor self) -> Tensor\n  variant: method\n", "unknown keys ['variant']"),
    ("- func: f(Tensor self) -> Tensor\n- func: f(Tensor self) -> Tensor\n", "declared twice"),
    ("- func: f(Tensor self, int x=) -> Tensor\n", "expected a default value at column 22"),
    ("- func: aten::f(Tensor self) -> Tensor\n", "without a namespace"),
    ("- func: f(Tensor self, ScalarType t=long) -> Tensor\n", "unsupported default"),
    ("- func: f(Scalar a, Scalar b=1) -> Tensor\n  cpp_overloads:\n    - {args: [b]}\n",
     "argument 'a' is neither listed nor set"),
    ("- func: f.a(Tensor self, int x) -> Tensor\n- func: f.b(Tensor self, int y) -> Tensor\n",
     "is also generated for f.a(Tensor self, int x) -> Tensor"),
]


def files_under(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs)


def run_gen(gen, yaml_path, out):
    return subprocess.run([sys.executable, gen, "--yaml", yaml_path, "--out", out],
                          capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    for a in ("--gen", "--yaml", "--golden", "--work"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    failures = []

    out = os.path.join(args.work, "out")
    shutil.rmtree(args.work, ignore_errors=True)
    r = run_gen(args.gen, args.yaml, out)
    if r.returncode != 0:
        sys.exit(f"gen.py failed:\n{r.stderr}")
    got, want = files_under(out), files_under(args.golden)
    if got != want:
        failures.append(f"generated files {got} != golden files {want}")
    for rel in sorted(set(got) & set(want)):
        with open(os.path.join(args.golden, rel)) as f:
            a = f.read().splitlines(keepends=True)
        with open(os.path.join(out, rel)) as f:
            b = f.read().splitlines(keepends=True)
        if a != b:
            diff = difflib.unified_diff(a, b, "golden/" + rel, "generated/" + rel)
            failures.append("".join(diff))

    stamps = {f: os.stat(os.path.join(out, f)).st_mtime_ns for f in got}
    run_gen(args.gen, args.yaml, out)
    if any(os.stat(os.path.join(out, f)).st_mtime_ns != t for f, t in stamps.items()):
        failures.append("a second run rewrote unchanged files (rebuilds would not be incremental)")

    for i, (text, fragment) in enumerate(BAD_ENTRIES):
        bad = os.path.join(args.work, f"bad{i}.yaml")
        with open(bad, "w") as f:
            f.write(text)
        r = run_gen(args.gen, bad, os.path.join(args.work, f"bad{i}"))
        if r.returncode == 0 or fragment not in r.stderr or "entry " not in r.stderr:
            failures.append(f"bad entry {text!r}: expected an error naming the entry and "
                            f"containing {fragment!r}; got rc={r.returncode} {r.stderr!r}")

    if failures:
        print("\n".join(failures))
        print("If the change to gen.py is intended, regenerate the golden files:\n  python3 "
              "tools/codegen/gen.py --yaml tests/codegen/golden_ops.yaml "
              "--out tests/codegen/golden")
        return 1
    print(f"codegen_golden: {len(got)} files match; {len(BAD_ENTRIES)} bad entries rejected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
