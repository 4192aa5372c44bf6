#!/usr/bin/env python3
"""compare.py's verdicts on hand-made records: each kind of difference is caught."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import compare_case  # noqa: E402


def t(label, dtype="float32", shape=(2,), strides=(1,), values=(1.0, 2.0)):
    return {"case": "c", "label": label, "kind": "tensor", "dtype": dtype, "shape": list(shape),
            "strides": list(strides), "values": list(values)}


def tag(kind, **kw):
    return dict({"case": "c", "label": "", "kind": kind}, **kw)


def check(want, erecs, trecs, contains=""):
    status, lines = compare_case(erecs, trecs)
    text = "\n".join(lines)
    assert status == want and contains in text, f"want {want} ({contains!r}), got {status}: {text}"


check("OK", [t("x")], [t("x")])
check("OK", [t("x", values=(1.000001, 2.0))], [t("x")])  # within float32's tolerance
check("DIFF", [t("x", values=(1.001, 2.0))], [t("x")], "element 0: 1.001 vs 1.0")
check("DIFF", [t("x", dtype="float64", values=(1.000001, 2.0))], [t("x", dtype="float64")], "element 0")
check("DIFF", [t("x", dtype="int64", values=(1, 3))], [t("x", dtype="int64", values=(1, 2))], "element 1")
check("DIFF", [t("x", dtype="float64")], [t("x")], "dtype float64 vs float32")
check("DIFF", [t("x", shape=(2, 1), strides=(1, 1))], [t("x")], "shape")
check("DIFF", [t("x", shape=(2, 2), strides=(2, 1), values=(0,) * 4)],
      [t("x", shape=(2, 2), strides=(1, 2), values=(0,) * 4)], "strides")
check("OK", [t("x", shape=(1, 2), strides=(7, 1))], [t("x", shape=(1, 2), strides=(2, 1))])  # size-1 dim
check("OK", [t("x", values=("nan", "inf"))], [t("x", values=("nan", "inf"))])
check("DIFF", [t("x", values=("nan", 2.0))], [t("x")], "element 0")
check("OK", [tag("raised", label="e", message="[f] bad")], [tag("raised", label="e", message="bad")])
check("DIFF", [tag("no_raise", label="e")], [tag("raised", label="e", message="bad")], "ember no_raise, libtorch raised")
check("DIFF", [t("x")], [t("x"), t("y")], "y: recorded by libtorch only")
check("XFAIL", [tag("expect_diff", reason="r"), t("x", values=(5.0, 2.0))], [t("x")], "expected: r")
check("XPASS", [tag("expect_diff", reason="r"), t("x")], [t("x")], "drop the tag")
check("PT2", [tag("pytorch2", reason="r"), t("x", values=(5.0, 2.0))], [t("x")], "element 0")
check("MISSING", [tag("missing", what="floor")], [t("x")], "floor")
check("ERROR", [tag("case_error", message="boom")], [t("x")], "boom")
print("compare.py self-test: ok")
