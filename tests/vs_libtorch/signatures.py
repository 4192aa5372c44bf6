#!/usr/bin/env python3
"""Compares the C++ overloads of every operator Ember and LibTorch 1.13 both have.

    signatures.py --ember GEN_INCLUDE_DIR [--torch /usr/include] [--allow signatures_allow.txt]
                  [--dispatcher-tensor dispatcher/include/ember/dispatcher/Tensor.h] [-v]

For every name Ember generates (ember/generated/Functions.h free functions and TensorMethods.h
methods) it lists LibTorch's overloads of that name (ATen/ops/<name>.h and the hand-written
ones in ATen/Functions.h; methods from ATen/core/TensorBody.h) and Ember's (generated, plus
the hand-written overloads in ember/api/Overloads.h and Tensor.h), each as its normalised
parameter types with defaults, and reports:

  missing  a LibTorch overload Ember lacks (a LibTorch call that does not compile, or worse,
           resolves to another Ember overload through an implicit conversion);
  extra    an Ember overload LibTorch lacks (a call that means something else in LibTorch);
  default  the same parameter types with different defaults (a call omitting an argument
           compiles on one side only, or means something else).

Every difference must match a line of the allow-list (a regex and the reason it is
deliberate); an allow-list line that matches nothing is stale and fails too, so the list
shrinks as overloads are fixed. Exit status 0 when every difference is allowed.

Named-tensor (Dimname) and SymInt overloads are LibTorch features Ember does not have: they are
left out before comparing. Type spellings that accept the same calls are normalised to one
(TensorList, ITensorListRef and const std::vector<Tensor>& all take a braced list of tensors).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    type: str
    name: str
    default: str | None


@dataclass(frozen=True)
class Sig:
    name: str
    ret: str
    params: tuple[Param, ...]
    where: str

    def key(self) -> tuple[str, ...]:
        return tuple(p.type for p in self.params)

    def text(self, defaults: bool = True) -> str:
        ps = ", ".join(p.type + (f" {p.name}" if p.name else "") +
                       (f"={p.default}" if defaults and p.default is not None else "")
                       for p in self.params)
        return f"{self.name}({ps})"


# ---- normalisation -----------------------------------------------------------------------------

_TYPE_SUBST = [
    (r"\bc10::optional\b", "std::optional"),
    (r"\b(?:at|c10|ember)::", ""),
    (r"^::std::", "std::"),
    (r"(?<![\w:])::std::", "std::"),
    (r"(?<!::)\bstring_view\b", "std::string_view"),
]
# Spellings that take the same calls (the right-hand side is the one printed).
_TYPE_SAME = {
    "TensorList": "TensorList",
    "const ITensorListRef&": "TensorList",
    "const std::vector<Tensor>&": "TensorList",
    "const List<std::optional<Tensor>>&": "const std::vector<std::optional<Tensor>>&",
    "std::optional<Generator>": "std::optional<Generator>",
    "const std::optional<Generator>&": "std::optional<Generator>",
    "OptionalIntArrayRef": "OptionalIntArrayRef",
    "OptionalArrayRef<int64_t>": "OptionalIntArrayRef",
    "std::optional<ArrayRef<double>>": "std::optional<ArrayRef<double>>",
    "ArrayRef<double>": "ArrayRef<double>",
}


def norm_type(t: str) -> str:
    t = " ".join(t.split())
    for pat, rep in _TYPE_SUBST:
        t = re.sub(pat, rep, t)
    t = re.sub(r"\s*&\s*", "&", t)
    t = re.sub(r"\s*\*\s*", "*", t)
    t = re.sub(r"\s*<\s*", "<", t)
    t = re.sub(r"\s*>", ">", t)
    t = re.sub(r"\s*,\s*", ", ", t)
    return _TYPE_SAME.get(t, t)


def norm_default(d: str | None) -> str | None:
    if d is None:
        return None
    d = " ".join(d.split())
    d = re.sub(r"\b(?:at|c10|ember)::", "", d)
    d = {"Reduction::None": "0", "Reduction::Mean": "1", "Reduction::Sum": "2"}.get(d, d)
    d = d.replace("nullopt", "std::nullopt").replace("std::std::", "std::")
    d = re.sub(r"(\d)\.0*\b", r"\1", d)  # 1.0 / 1. -> 1
    d = re.sub(r"(\d)e-0*(\d)", r"\1e-\2", d)
    if d == "std::nullopt" or d == "{}":
        return "{}"
    if d in ("::std::numeric_limits<double>::infinity()", "std::numeric_limits<double>::infinity()"):
        return "inf"
    if d in ("-::std::numeric_limits<double>::infinity()", "-std::numeric_limits<double>::infinity()"):
        return "-inf"
    d = re.sub(r"\{\s*", "{", d)
    d = re.sub(r"\s*\}", "}", d)
    d = re.sub(r"\s*,\s*", ", ", d)
    return d


def split_top(s: str, sep: str = ",") -> list[str]:
    out, depth, cur, quote = [], 0, [], None
    for ch in s:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


def parse_params(s: str) -> tuple[Param, ...] | None:
    params = []
    for p in split_top(s):
        p = p.strip()
        if not p:
            continue
        default = None
        eq = split_top(p, "=")
        if len(eq) > 1:
            p, default = eq[0].strip(), "=".join(eq[1:]).strip()
        m = re.match(r"^(.*?[\s&*>])(\w+)$", p)
        if not m:
            return None
        params.append(Param(norm_type(m.group(1)), m.group(2), norm_default(default)))
    return tuple(params)


# A declaration or inline definition on one line: `[TORCH_API|EMBER_API] [inline] RET NAME(ARGS) [const] {|;`
_DECL = re.compile(r"^\s*(?:TORCH_API\s+|EMBER_API\s+)*(?:inline\s+)?(?:TORCH_API\s+)?"
                   r"(?P<ret>[\w:<>,\s&*]+?)\s*\b(?P<name>\w+)\((?P<params>.*)\)\s*(?P<const>const)?"
                   r"\s*(?:override\s*)?[;{]")

_SKIP_TYPES = re.compile(r"Dimname|SymInt|Stream\b|Storage\b|TypeMeta|QuantizerPtr|Tensor\*")


def parse_decls(text: str, where: str, want_const: bool | None) -> list[Sig]:
    sigs = []
    for line in text.splitlines():
        m = _DECL.match(line)
        if not m:
            continue
        ret = m.group("ret").strip()
        if ret in ("return", "else", "new", "delete") or ret.startswith(("return ", "template")) \
                or "=" in ret or "(" in ret:
            continue
        if want_const is not None and bool(m.group("const")) != want_const:
            continue
        params = parse_params(m.group("params"))
        if params is None:
            continue
        if _SKIP_TYPES.search(m.group("params")) or m.group("name").endswith("_symint"):
            continue
        sigs.append(Sig(m.group("name"), norm_type(ret), params, where))
    return sigs


# ---- the two sides -----------------------------------------------------------------------------


def read(path: str) -> str:
    with open(path) as f:
        return f.read()


def class_body(text: str, head: str) -> str:
    """The body of the class starting at `head` (brace-matched)."""
    at = text.index(head)
    i = text.index("{", at)
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1:j]
    raise ValueError(f"unbalanced class {head}")


def top_level_of_namespace_symint_removed(text: str) -> str:
    """LibTorch's ops headers also hold `namespace symint { template ... }` blocks: drop them."""
    out, skip, depth = [], False, 0
    for line in text.splitlines():
        if re.match(r"^\s*namespace symint\s*\{", line):
            skip, depth = True, 0
        if skip:
            depth += line.count("{") - line.count("}")
            if depth <= 0 and "}" in line:
                skip = False
            continue
        out.append(line)
    return "\n".join(out)


def torch_functions(torch_inc: str, names: set[str]) -> dict[str, list[Sig]]:
    out: dict[str, list[Sig]] = {}
    ops = os.path.join(torch_inc, "ATen", "ops")
    for n in sorted(names):
        base = re.sub(r"_outf?$", "", n)
        for cand in {n, base, base + "_"}:
            p = os.path.join(ops, cand + ".h")
            if os.path.exists(p):
                text = top_level_of_namespace_symint_removed(read(p))
                for s in parse_decls(text, f"ATen/ops/{cand}.h", False):
                    if s.name == n and s not in out.get(n, []):
                        out.setdefault(n, []).append(s)
    hand = read(os.path.join(torch_inc, "ATen", "Functions.h"))
    hand = hand[hand.index("namespace at {"):]
    for s in parse_decls(hand, "ATen/Functions.h", False):
        if s.name in names and s.params and s.params[0].type == "const Tensor&":
            out.setdefault(s.name, []).append(s)
    return out


def torch_methods(torch_inc: str, names: set[str]) -> dict[str, list[Sig]]:
    body = class_body(read(os.path.join(torch_inc, "ATen", "core", "TensorBody.h")),
                      "class TORCH_API Tensor: public TensorBase")
    out: dict[str, list[Sig]] = {}
    for s in parse_decls(body, "ATen/core/TensorBody.h", True):
        if s.name in names:
            out.setdefault(s.name, []).append(s)
    return out


def ember_side(gen_inc: str, extra_function_files: list[str], extra_method_files: list[str]):
    funcs: dict[str, list[Sig]] = {}
    methods: dict[str, list[Sig]] = {}
    g = os.path.join(gen_inc, "ember", "generated")
    for s in parse_decls(read(os.path.join(g, "Functions.h")), "generated/Functions.h", False):
        funcs.setdefault(s.name, []).append(s)
    for s in parse_decls(read(os.path.join(g, "TensorMethods.h")), "generated/TensorMethods.h", True):
        methods.setdefault(s.name, []).append(s)
    for path in extra_function_files:  # hand-written overloads of generated names only
        for s in parse_decls(read(path), os.path.basename(path), False):
            if s.name in funcs and s not in funcs[s.name]:
                funcs[s.name].append(s)
    for path in extra_method_files:
        text = read(path)
        if "class EMBER_API Tensor" in text:
            text = class_body(text, "class EMBER_API Tensor")
        for s in parse_decls(text, os.path.basename(path), True):
            if s.name in methods and s not in methods[s.name]:
                methods[s.name].append(s)
    return funcs, methods


# ---- comparing ----------------------------------------------------------------------------------


def compare(kind: str, ember: dict[str, list[Sig]], torch: dict[str, list[Sig]]) -> list[str]:
    diffs = []
    for name in sorted(ember):
        if name not in torch:
            continue  # an operator LibTorch 1.13 does not have (a PyTorch 2 one or Ember's own)
        e = {s.key(): s for s in ember[name]}
        t = {s.key(): s for s in torch[name]}
        for k, s in t.items():
            if k not in e:
                diffs.append(f"{kind} missing {s.text()}")
            else:
                td = tuple(p.default for p in s.params)
                ed = tuple(p.default for p in e[k].params)
                if td != ed:
                    diffs.append(f"{kind} default {s.text()} vs ember {e[k].text()}")
        for k, s in e.items():
            if k not in t:
                diffs.append(f"{kind} extra {s.text()}")
    return diffs


def load_allow(path: str) -> list[tuple[re.Pattern, str, str]]:
    rules = []
    for i, line in enumerate(read(path).splitlines(), 1):
        line = line.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if " -- " not in line:
            raise SystemExit(f"{path}:{i}: expected `REGEX -- reason`")
        pat, reason = line.split(" -- ", 1)
        rules.append((re.compile(pat.strip()), reason.strip(), f"{path}:{i}"))
    return rules


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap.add_argument("--ember", required=True, help="the generated include dir (holds ember/generated)")
    ap.add_argument("--torch", default="/usr/include", help="LibTorch's include dir")
    ap.add_argument("--allow", default=os.path.join(here, "signatures_allow.txt"))
    ap.add_argument("--root", default=root, help="Ember's source tree (hand-written overloads)")
    ap.add_argument("-v", action="store_true", help="print allowed differences too")
    args = ap.parse_args(argv)

    fn_files = [os.path.join(args.root, "api/include/ember/api/Overloads.h")]
    m_files = [os.path.join(args.root, "dispatcher/include/ember/dispatcher/Tensor.h")]
    funcs, methods = ember_side(args.ember, [p for p in fn_files if os.path.exists(p)], m_files)
    diffs = compare("function", funcs, torch_functions(args.torch, set(funcs)))
    diffs += compare("method", methods, torch_methods(args.torch, set(methods)))

    rules = load_allow(args.allow)
    used = [0] * len(rules)
    bad = []
    for d in diffs:
        hit = next((i for i, (r, _, _) in enumerate(rules) if r.search(d)), None)
        if hit is None:
            bad.append(d)
        else:
            used[hit] += 1
            if args.v:
                print(f"allowed: {d}    [{rules[hit][1]}]")
    stale = [rules[i] for i in range(len(rules)) if not used[i]]
    for d in bad:
        print(f"DIFF: {d}")
    for r, reason, where in stale:
        print(f"STALE: {where}: /{r.pattern}/ matches no difference ({reason})")
    n_names = len(set(funcs) | set(methods))
    print(f"signatures: {n_names} Ember names compared; {len(diffs)} differences, "
          f"{len(diffs) - len(bad)} allowed, {len(bad)} not allowed, {len(stale)} stale allow-list lines")
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
