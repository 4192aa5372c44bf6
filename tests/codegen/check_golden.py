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
K = "  dispatch: {CPU: k}\n"  # a kernel, so an entry fails for the reason under test only
BAD_ENTRIES = [
    ("- func: f(Tensor self, Generator g) -> Tensor\n" + K, "unsupported type 'Generator'"),
    ("- func: f(Tensor(a!)[] self) -> ()\n" + K, "unsupported type 'Tensor[]' (mutable)"),
    ("- func: f(int x) -> Tensor\n  variants: method\n" + K, "needs a 'Tensor self'"),
    ("- func: f(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  variants: function, method\n" + K,
     "out= operators are functions only"),
    ("- func: f(Tensor self) -> Tensor\n  variant: method\n" + K, "unknown keys ['variant']"),
    ("- func: f(Tensor self) -> Tensor\n  plugin: nn\n" + K,
     "plugin: only a composite kernel"),
    ("- func: f(Tensor self) -> Tensor\n  plugin: vision\n"
     "  dispatch:\n    CompositeImplicitAutograd: f\n", "plugin: expected one of nn, quantized, got 'vision'"),
    ("- func: f(Tensor self) -> Tensor\n" + K + "- func: f(Tensor self) -> Tensor\n" + K,
     "declared twice"),
    ("- func: f(Tensor self, int x=) -> Tensor\n" + K, "expected a default value at column 22"),
    ("- func: aten::f(Tensor self) -> Tensor\n" + K, "without a namespace"),
    ("- func: f(Tensor self, ScalarType t=long) -> Tensor\n" + K, "unsupported default"),
    ("- func: f(Scalar a, Scalar b=1) -> Tensor\n  cpp_overloads:\n    - {args: [b]}\n" + K,
     "argument 'a' is neither listed nor set"),
    ("- func: f.a(Tensor self, int x) -> Tensor\n" + K + "- func: f.b(Tensor self, int y) -> Tensor\n"
     + K, "is also generated for f.a(Tensor self, int x) -> Tensor"),
    # Kernel wiring.
    ("- func: f(Tensor self) -> Tensor\n", "no kernel: give `dispatch:`"),
    ("- func: f(Tensor self) -> Tensor\n  pending: pointwise\n" + K, "an entry with kernels is not pending"),
    ("- func: f(Tensor self, int x=1) -> Tensor\n  cpp_no_default_args: [y]\n" + K,
     "cpp_no_default_args: expected a list of the schema's argument names"),
    ("- func: f(Tensor self) -> Tensor\n  dispatch: {GPU: k}\n", "dispatch: unknown key 'GPU'"),
    ("- func: f(Tensor self) -> Tensor\n  dispatch: {CPU: k, 'CPU, Meta': j}\n",
     "key 'CPU' given twice"),
    ("- func: f(Tensor self) -> Tensor\n  dispatch: {CPU: k, CompositeImplicitAutograd: c}\n",
     "a composite kernel serves every backend"),
    ("- func: f(Tensor self) -> Tensor\n  structured: True\n" + K,
     "only an out= entry"),
    ("- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n"
     "  dispatch: {'CPU, Meta': k}\n", "Meta comes from the shared meta function"),
    ("- func: f(Tensor self) -> Tensor\n  structured_delegate: f.out\n",
     "'f.out' is not a structured entry"),
    ("- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n" + K +
     "- func: f(Tensor self, int x) -> Tensor\n  structured_delegate: f.out\n",
     "must be those of f.out without the outs"),
    ("- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n" + K +
     "- func: f(Tensor self) -> Tensor\n  structured_delegate: f.out\n" + K,
     "the kernel is the delegate's"),
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
