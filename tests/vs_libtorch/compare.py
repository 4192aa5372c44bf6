#!/usr/bin/env python3
"""Runs the differential cases against Ember and LibTorch and compares their records.

Note [Differential cases against LibTorch] in vs_api.h. Each side writes JSON lines; this compares
every (case, label): kind (tensor, scalar, raised), dtype, shape, strides (dims of size > 1 only,
as PyTorch ignores the others), and values with dtype-aware tolerances (torch.testing's defaults).
A case tagged expect_diff must differ (an XPASS fails, so stale tags go); a case tagged pytorch2
is reported either way; an operator Ember lacks (missing) is reported. Anything else that differs,
and an exception a case did not expect, fails.
"""
import argparse
import json
import math
import os
import subprocess
import sys

# (rtol, atol) as torch.testing.assert_close; integers and bool exactly.
TOL = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def run(binary, out, family):
    env = dict(os.environ)
    p = subprocess.run([binary, out, family], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{binary} failed ({p.returncode}):\n{p.stdout}{p.stderr}")


def load(path):
    cases = {}
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            cases.setdefault(rec["case"], []).append(rec)
    return cases


def num(v):
    return float(v) if isinstance(v, str) else v


def close(a, b, rtol, atol):
    a, b = num(a), num(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def diff_output(e, t):
    """Why the Ember record e differs from the LibTorch record t, or None."""
    if e["kind"] != t["kind"]:
        detail = (e.get("message", "") or t.get("message", "")).splitlines()[0:1]
        detail = detail[0] if detail else ""
        return f"ember {e['kind']}, libtorch {t['kind']}" + (f" ({detail})" if detail else "")
    if e["kind"] == "scalar":
        return None if close(e["value"], t["value"], 1e-7, 1e-7) else f"value {e['value']} vs {t['value']}"
    if e["kind"] != "tensor":
        return None
    if e["dtype"] != t["dtype"]:
        return f"dtype {e['dtype']} vs {t['dtype']}"
    if e["shape"] != t["shape"]:
        return f"shape {e['shape']} vs {t['shape']}"
    if any(s > 1 and a != b for s, a, b in zip(t["shape"], e["strides"], t["strides"])):
        return f"strides {e['strides']} vs {t['strides']} (shape {t['shape']})"
    rtol, atol = TOL.get(t["dtype"], (0, 0))
    for i, (a, b) in enumerate(zip(e["values"], t["values"])):
        if not close(a, b, rtol, atol):
            return f"element {i}: {a} vs {b} (dtype {t['dtype']})"
    return None


def compare_case(erecs, trecs):
    """(status, lines) for one case."""
    tags = {r["kind"]: r for r in erecs + trecs if r["kind"] in ("expect_diff", "pytorch2", "missing", "case_error")}
    if "case_error" in tags:
        return "ERROR", [f"unexpected exception: {tags['case_error']['message'].splitlines()[0]}"]
    if "missing" in tags:
        return "MISSING", [f"not in Ember: {tags['missing']['what']}"]
    e = {r["label"]: r for r in erecs if r["kind"] not in tags}
    t = {r["label"]: r for r in trecs if r["kind"] not in tags}
    lines = []
    for label in sorted(set(e) | set(t)):
        if label not in e or label not in t:
            lines.append(f"{label}: recorded by {'ember' if label in e else 'libtorch'} only")
            continue
        why = diff_output(e[label], t[label])
        if why:
            lines.append(f"{label}: {why}")
    if "expect_diff" in tags:
        reason = tags["expect_diff"]["reason"]
        return ("XFAIL", [f"expected: {reason}"] + lines) if lines else ("XPASS", [f"agrees now; drop the tag ({reason})"])
    if "pytorch2" in tags:
        reason = tags["pytorch2"]["reason"]
        return ("PT2", [f"follows PyTorch 2.x: {reason}"] + lines)
    return ("DIFF", lines) if lines else ("OK", [])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ember", required=True)
    ap.add_argument("--torch", required=True)
    ap.add_argument("--family", default="")
    ap.add_argument("--workdir", default=".")
    ap.add_argument("-v", "--verbose", action="store_true", help="also print the raised messages")
    args = ap.parse_args()
    tag = args.family.rstrip(".") or "all"
    eout = os.path.join(args.workdir, f"vs_{tag}.ember.jsonl")
    tout = os.path.join(args.workdir, f"vs_{tag}.libtorch.jsonl")
    run(args.ember, eout, args.family)
    run(args.torch, tout, args.family)
    ecases, tcases = load(eout), load(tout)
    failed = 0
    counts = {}
    for name in sorted(set(ecases) | set(tcases)):
        status, lines = compare_case(ecases.get(name, []), tcases.get(name, []))
        if name not in ecases or name not in tcases:
            status, lines = "DIFF", [f"run by {'ember' if name in ecases else 'libtorch'} only"]
        counts[status] = counts.get(status, 0) + 1
        failed += status in ("DIFF", "ERROR", "XPASS")
        print(f"{status:7} {name}")
        for line in lines:
            print(f"        {line}")
        # Ember's messages lead with the function's name (STYLE.md); report, don't fail.
        for r in ecases.get(name, []):
            if r["kind"] == "raised" and not r["message"].startswith("["):
                counts["note"] = counts.get("note", 0) + 1
                print(f"        note: ember {r['label']}: message not led by [name]: {r['message'].splitlines()[0]}")
        if args.verbose:
            for side, recs in (("ember", ecases.get(name, [])), ("libtorch", tcases.get(name, []))):
                for r in recs:
                    if r["kind"] == "raised":
                        print(f"        {side} {r['label']}: {r['message'].splitlines()[0]}")
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
