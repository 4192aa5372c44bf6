#!/usr/bin/env python3
"""Generates Ember's typed operator API from schemas/ops.yaml.

    gen.py --yaml schemas/ops.yaml --out DIR

writes DIR/include/ember/generated/{Functions.h,TensorMethods.h} and
DIR/src/{Functions.cpp,RegisterSchemas.cpp}, rewriting only the files whose content changed.

Each entry's schema string is parsed once (parse_schema) into Schema/Arg/Type; everything after
that works on that structure: cpp_functions() turns an entry into the C++ functions it gets
(CppFn: name, return type, parameters, and one call expression per schema argument), and the
render_* functions print them. The C++ types follow API.md's table (cpp_arg_type).
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import sys
from dataclasses import dataclass, field

import yaml


class GenError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# The schema structure and its parser (PyTorch's grammar; see Note [Schema grammar] in
# core/include/ember/core/Schema.h).


@dataclass(frozen=True)
class Type:
    kind: str  # a base type ("Tensor", "int", ...), "list" or "optional"
    elem: Type | None = None
    size: int | None = None  # int[2] -> 2

    def __str__(self) -> str:
        if self.kind == "list":
            return f"{self.elem}[{'' if self.size is None else self.size}]"
        if self.kind == "optional":
            return f"{self.elem}?"
        return self.kind


@dataclass(frozen=True)
class Default:
    kind: str  # "none", "bool", "num", "str", "list" (value: list of Default) or "ident"
    value: object = None


@dataclass
class Arg:
    name: str  # "" for an unnamed return
    type: Type
    alias: str | None = None  # the annotation without parentheses: "a!", "a", "a|b"
    default: Default | None = None
    kwarg_only: bool = False

    @property
    def is_write(self) -> bool:
        return self.alias is not None and "!" in self.alias


# The keyword-only group LibTorch passes as one `TensorOptions options`.
OPTIONS_GROUP = (("dtype", "ScalarType"), ("layout", "Layout"), ("device", "Device"),
                 ("pin_memory", "bool"))


@dataclass
class Schema:
    text: str
    name: str
    overload: str
    args: list[Arg]
    returns: list[Arg]

    @property
    def out_args(self) -> list[Arg]:
        return [a for a in self.args if a.kwarg_only and a.is_write]

    def options_at(self) -> int | None:
        """Index of the dtype/layout/device/pin_memory group, or None."""
        names = [(a.name, str(a.type)) for a in self.args]
        want = [(n, t + "?") for n, t in OPTIONS_GROUP]
        for i in range(len(names) - len(want) + 1):
            if names[i:i + len(want)] == want:
                return i
        return None


_TOKEN = re.compile(r"""\s*(?:
    (?P<num>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)
  | (?P<punct>->|::|\.\.\.|[()\[\],*?!|=.\-])
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  )""", re.X)


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks: list[tuple[str, str, int]] = []  # (kind, text, 1-based column)
        pos = 0
        while text[pos:].strip():
            m = _TOKEN.match(text, pos)
            if not m:
                col = len(text) - len(text[pos:].lstrip()) + 1
                raise GenError(f"unexpected character at column {col}")
            self.toks.append((m.lastgroup, m.group(m.lastgroup), m.start(m.lastgroup) + 1))
            pos = m.end()
        self.i = 0

    def peek(self) -> tuple[str, str, int]:
        return self.toks[self.i] if self.i < len(self.toks) else ("end", "", len(self.text) + 1)

    def next(self) -> tuple[str, str, int]:
        tok = self.peek()
        self.i += 1
        return tok

    def accept(self, text: str) -> bool:
        if self.peek()[1] == text and self.peek()[0] == "punct":
            self.i += 1
            return True
        return False

    def expect(self, what: str, kind: str = "punct") -> str:
        k, t, col = self.peek()
        if k != kind or (kind == "punct" and t != what):
            raise GenError(f"expected {what} at column {col}, got '{t or 'end'}'")
        self.i += 1
        return t

    def type(self) -> tuple[Type, str | None]:
        t = Type(self.expect("a type", "ident"))
        alias = None
        if self.accept("("):
            parts = []
            while not self.accept(")"):
                if self.peek()[0] == "end":
                    self.expect(")")
                parts.append(self.next()[1])
            alias = "".join(parts)
        while True:
            if self.accept("["):
                size = int(self.next()[1]) if self.peek()[0] == "num" else None
                self.expect("]")
                t = Type("list", t, size)
            elif self.accept("?"):
                t = Type("optional", t)
            else:
                return t, alias

    def default(self) -> Default:
        if self.accept("["):
            items = []
            while not self.accept("]"):
                if items:
                    self.expect(",")
                items.append(self.default())
            return Default("list", items)
        kind, text, col = self.next()
        if kind == "punct" and text == "-" and self.peek()[1] == "inf":
            self.next()
            return Default("num", "-inf")
        if kind == "num":
            return Default("num", text)
        if kind == "str":
            return Default("str", ast.literal_eval(text))
        if kind == "ident":
            fixed = {"None": Default("none"), "True": Default("bool", True),
                     "False": Default("bool", False), "inf": Default("num", "inf")}
            return fixed.get(text, Default("ident", text))
        raise GenError(f"expected a default value at column {col}, got '{text or 'end'}'")

    def arg(self, kwarg_only: bool) -> Arg:
        t, alias = self.type()
        name = self.expect("an argument name", "ident")
        default = self.default() if self.accept("=") else None
        return Arg(name, t, alias, default, kwarg_only)

    def ret(self) -> Arg:
        t, alias = self.type()
        name = self.next()[1] if self.peek()[0] == "ident" else ""
        return Arg(name, t, alias)


def parse_schema(text: str) -> Schema:
    p = _Parser(text)
    name = p.expect("the operator name", "ident")
    if p.accept("::"):
        raise GenError("write the schema without a namespace (built-in operators are aten::)")
    overload = p.expect("an overload name", "ident") if p.accept(".") else ""
    p.expect("(")
    args: list[Arg] = []
    kwarg_only = False
    while not p.accept(")"):
        if args or kwarg_only:
            p.expect(",")
        if p.accept("*"):
            kwarg_only = True
        else:
            args.append(p.arg(kwarg_only))
    p.expect("->")
    rets: list[Arg] = []
    if p.accept("("):
        while not p.accept(")"):
            if rets:
                p.expect(",")
            rets.append(p.ret())
    else:
        rets.append(p.ret())
    p.expect("end of schema", "end")
    return Schema(text, name, overload, args, rets)


# ---------------------------------------------------------------------------------------------
# C++ types and defaults (API.md: "Precise signatures").

_CPP_VALUE = {"int": "int64_t", "float": "double", "bool": "bool", "str": "std::string_view",
              "ScalarType": "ScalarType", "Layout": "Layout", "Device": "Device",
              "QScheme": "QScheme", "MemoryFormat": "MemoryFormat"}


def cpp_arg_type(a: Arg) -> str:
    t, e = a.type, a.type.elem
    if a.is_write:
        if t.kind == "Tensor":
            return "Tensor&"
    elif t.kind in ("Tensor", "Scalar"):
        return f"const {t.kind}&"
    elif t.kind in _CPP_VALUE:
        return _CPP_VALUE[t.kind]
    elif t.kind == "list":
        if e.kind == "int":
            return "IntArrayRef"
        if e.kind == "float":
            return "ArrayRef<double>"
        if e.kind == "bool" and t.size is not None:  # bool[3] output masks, as LibTorch
            return f"std::array<bool, {t.size}>"
        if e.kind == "Tensor":
            return "const std::vector<Tensor>&"
        if str(e) == "Tensor?":
            return "const std::vector<std::optional<Tensor>>&"
    elif t.kind == "optional":
        if e.kind in ("Tensor", "Scalar"):
            return f"const std::optional<{e.kind}>&"
        if e.kind == "Generator": return "std::optional<Generator>"  # by value, as LibTorch
        if e.kind in _CPP_VALUE:
            return f"std::optional<{_CPP_VALUE[e.kind]}>"
        if e.kind == "list" and e.elem.kind == "int":  # int[]? and int[1]? alike
            return "std::optional<IntArrayRef>"
        if e.kind == "list" and e.elem.kind == "float":
            return "std::optional<ArrayRef<double>>"
    mut = " (mutable)" if a.is_write else ""
    raise GenError(f"argument '{a.name}': unsupported type '{t}'{mut}")


_CPP_RETURN = {"Scalar": "Scalar", "int": "int64_t", "float": "double", "bool": "bool",
               "Tensor[]": "std::vector<Tensor>", "QScheme": "QScheme"}


def cpp_return_type(rets: list[Arg]) -> str:
    def one(r: Arg) -> str:
        if str(r.type) == "Tensor":
            return "Tensor&" if r.is_write else "Tensor"
        if str(r.type) in _CPP_RETURN and not r.is_write:
            return _CPP_RETURN[str(r.type)]
        raise GenError(f"unsupported return type '{r.type}'")

    if not rets:
        return "void"
    types = [one(r) for r in rets]
    return types[0] if len(types) == 1 else f"std::tuple<{', '.join(types)}>"


def cpp_default(a: Arg) -> str:
    d = a.default
    if d.kind == "none" and a.type.kind == "optional":
        return "std::nullopt"
    if d.kind == "bool":
        return "true" if d.value else "false"
    if d.kind == "num" and d.value in ("inf", "-inf"):
        return ("-" if d.value[0] == "-" else "") + "std::numeric_limits<double>::infinity()"
    if d.kind == "num":
        return d.value
    if d.kind == "str":
        return cpp_string(d.value)
    if d.kind == "list" and all(x.kind == "num" for x in d.value):
        return "{" + ", ".join(x.value for x in d.value) + "}"
    if d.kind == "ident" and a.type.kind == "MemoryFormat" and d.value in _MEMORY_FORMATS:
        return _MEMORY_FORMATS[d.value]
    raise GenError(f"argument '{a.name}': unsupported default for '{a.type}'")


# PyTorch's schema spellings of the memory formats (Note [Memory formats]).
_MEMORY_FORMATS = {"contiguous_format": "MemoryFormat::Contiguous",
                   "preserve_format": "MemoryFormat::Preserve",
                   "channels_last": "MemoryFormat::ChannelsLast",
                   "channels_last_3d": "MemoryFormat::ChannelsLast3d"}


def cpp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---------------------------------------------------------------------------------------------
# From an entry to the C++ functions it gets.


@dataclass
class Param:
    type: str
    name: str
    default: str | None = None


@dataclass
class CppFn:
    name: str
    ret: str
    params: list[Param]
    call_args: list[str]  # one expression per schema argument, in schema order
    method: bool
    options: bool  # has the TensorOptions parameter: apply options.requires_grad_value()


@dataclass
class Op:
    schema: Schema
    function: bool
    method: bool
    doc: str | None
    cpp_overloads: list[dict] = field(default_factory=list)
    dispatch: dict[str, str] = field(default_factory=dict)  # key -> kernel function
    structured: bool = False  # an out= entry whose kernel is the family's one implementation
    delegate: Op | None = None  # structured_delegate: the out= entry that implements this one
    where: tuple[str, int] = ("", 0)  # (yaml file, line): the provenance of its registrations
    plugin: str = ""  # the plugin holding its composite kernel ("" for libember)
    no_default_args: list[str] = field(default_factory=list)  # cpp_no_default_args
    pending: str = ""  # declared ahead of its kernels: the family that brings them

    @property
    def full_name(self) -> str:
        s = self.schema
        return f"{s.name}.{s.overload}" if s.overload else s.name

    @property
    def meta_fn(self) -> str:
        """A structured family's shared meta function: add.out -> meta_add,
        pow.Tensor_Tensor_out -> meta_pow_Tensor_Tensor."""
        ovl = re.sub(r"_?out$", "", self.schema.overload)
        return f"meta_{self.schema.name}" + (f"_{ovl}" if ovl else "")

    @property
    def handle(self) -> str:
        """The name of the cached handle's accessor in Functions.cpp: add_.Tensor ->
        add_inplace_Tensor (no `__`, which C++ reserves)."""
        s = self.schema
        name = s.name[:-1] + "_inplace" if s.name.endswith("_") else s.name
        return f"{name}_{s.overload}" if s.overload else name


def public_arg_type(a: Arg) -> str:
    """A parameter's C++ type in the public API (Functions.h, TensorMethods.h): the kernel's,
    except that an optional dims list is an OptionalIntArrayRef (Note [OptionalIntArrayRef])."""
    t = a.type
    if t.kind == "optional" and t.elem.kind == "list" and t.elem.elem.kind == "int":
        return "OptionalIntArrayRef"
    return cpp_arg_type(a)


def build_fn(op: Op, name: str, order: list[str], method: bool, defaults: str,
             fixed: dict | None = None, public: bool = True,
             types: dict | None = None) -> CppFn:
    """A C++ function taking the schema arguments named in `order` ("options" for the
    TensorOptions group). `defaults`: "all" keeps the schema's defaults, "options" only
    `options = {}`, "none" none. An argument not in `order` takes `fixed[name]`, else its
    default. `public`: the public API's parameter types (else the kernels'). `types`: C++
    parameter types replacing the schema's (a dims list taken as one `int`, as LibTorch's
    hand-written var(int dim))."""
    s, fixed, types = op.schema, fixed or {}, types or {}
    by_name = {a.name: a for a in s.args}
    group = {n for n, _ in OPTIONS_GROUP} if s.options_at() is not None else set()
    params = []
    for n in order:
        if n == "options":
            if not group:
                raise GenError("'options' given, but the schema has no dtype/layout/device/"
                               "pin_memory group")
            params.append(Param("TensorOptions", "options", None if defaults == "none" else "{}"))
            continue
        if n not in by_name:
            raise GenError(f"cpp_overloads: no argument '{n}' in the schema")
        a = by_name[n]
        keep = defaults == "all" and a.default is not None and n not in op.no_default_args
        ptype = types.get(n) or (public_arg_type(a) if public else cpp_arg_type(a))
        params.append(Param(ptype, n, cpp_default(a) if keep else None))
    # C++ allows defaults only on trailing parameters (LibTorch drops the others too).
    required = [i for i, p in enumerate(params) if p.default is None]
    for p in params[:required[-1] if required else 0]:
        p.default = None
    call_args = []
    for a in s.args:
        cpp_arg_type(a)  # rejects an unsupported type even when the argument is not a parameter
        if method and a.name == "self":
            call_args.append("const_cast<Tensor&>(*this)" if a.is_write else "*this")
        elif a.name in group and "options" in order:
            call_args.append("options.pinned_memory_opt()" if a.name == "pin_memory" else
                             f"options.{a.name}_opt()")
        elif a.name in types and a.type.kind in ("list", "optional"):
            call_args.append(f"IntArrayRef{{{a.name}}}")  # one dim: a list of one
        elif a.name in order:
            call_args.append(a.name)
        elif a.name in fixed:
            call_args.append(str(fixed[a.name]).lower() if isinstance(fixed[a.name], bool)
                             else str(fixed[a.name]))
        elif a.default is not None:
            call_args.append(cpp_default(a))
        else:
            raise GenError(f"cpp_overloads: argument '{a.name}' is neither listed nor set")
    return CppFn(name, cpp_return_type(s.returns), params, call_args, method, "options" in order)


def cpp_functions(op: Op, method: bool) -> list[CppFn]:
    """The C++ functions (method=False) or Tensor methods (method=True) of one entry."""
    s = op.schema
    names = [a.name for a in s.args if not (method and a.name == "self")]
    if s.out_args:  # LibTorch's add_out(out, self, other, alpha=1) and add_outf(self, ..., out)
        outs = [a.name for a in s.out_args]
        return [build_fn(op, s.name + "_out", outs + [n for n in names if n not in outs],
                         method, "all"),
                build_fn(op, s.name + "_outf", names, method, "none")]
    grouped = list(names)
    at = s.options_at()
    if at is not None:  # the four arguments become one `TensorOptions options = {}`
        first = grouped.index(OPTIONS_GROUP[0][0])
        grouped[first:first + len(OPTIONS_GROUP)] = ["options"]
    if op.cpp_overloads:
        fns = [build_fn(op, s.name, grouped, method, "all") if o == "derived" else
               build_fn(op, s.name, [n for n in o["args"] if not (method and n == "self")],
                        method, "options", o.get("set"), types=o.get("types"))
               for o in op.cpp_overloads]
    else:
        fns = [build_fn(op, s.name, grouped, method, "all")]
    if at is not None:  # and LibTorch's ungrouped overload, without defaults
        fns.append(build_fn(op, s.name, names, method, "none"))
    return fns


# ---------------------------------------------------------------------------------------------
# Reading ops.yaml.

_KEYS = {"func", "variants", "doc", "cpp_overloads", "cpp_no_default_args", "dispatch", "structured",
         "structured_delegate", "plugin", "pending"}

# Plugins that hold composite kernels (`plugin: nn` or `plugin: quantized` on an entry): its composite kernel is
# declared in ember/generated/<plugin>/CompositeFunctions.h and registered by that plugin's
# generated <plugin>/RegisterComposite.cpp instead of libember's.
COMPOSITE_PLUGINS = ("nn", "quantized")

# Keys a `dispatch:` line may name: a backend key (its kernels live in namespace ember::<key
# in lower case> of that backend's plugin) or a composite alias key (kernels in ember::native,
# in libember, registered by RegisterComposite.cpp).
BACKENDS = ("CPU", "CUDA", "HIP", "Meta")
BACKEND_KEYS = [f + b for f in ("", "Quantized", "Sparse", "SparseCsr") for b in BACKENDS]
COMPOSITE_KEYS = ("CompositeExplicitAutograd", "CompositeImplicitAutograd")


def parse_dispatch(d: object) -> dict[str, str]:
    """{"CPU, Meta": "f", "CUDA": "g"} -> {"CPU": "f", "Meta": "f", "CUDA": "g"}."""
    if not isinstance(d, dict) or not d:
        raise GenError("dispatch: expected a mapping {Key[, Key]: kernel_function}")
    out: dict[str, str] = {}
    for keys, fn in d.items():
        if not isinstance(fn, str) or not re.fullmatch(r"[A-Za-z_]\w*", fn):
            raise GenError(f"dispatch: '{keys}': expected a C++ function name, got {fn!r}")
        for k in (x.strip() for x in str(keys).split(",")):
            if k not in BACKEND_KEYS and k not in COMPOSITE_KEYS:
                raise GenError(f"dispatch: unknown key '{k}'; expected one of "
                               f"{', '.join(BACKEND_KEYS + list(COMPOSITE_KEYS))}")
            if k in out:
                raise GenError(f"dispatch: key '{k}' given twice")
            out[k] = fn
    if len(out) > 1 and set(out) & set(COMPOSITE_KEYS):
        raise GenError("dispatch: a composite kernel serves every backend; list it alone")
    return out


def check_delegate(op: Op, target: Op) -> None:
    """A structured_delegate entry takes the out= entry's arguments without the outs (the
    functional variant) or with `self` written (the in-place variant), and returns as many
    tensors as it has outs."""
    s, t = op.schema, target.schema
    outs = [a.name for a in t.out_args]
    want = [(a.name, str(a.type)) for a in t.args if a.name not in outs]
    got = [(a.name, str(a.type)) for a in s.args]
    if got != want:
        raise GenError(f"structured_delegate: its arguments {got} must be those of "
                       f"{target.full_name} without the outs {want}")
    writes = [a.name for a in s.args if a.is_write]
    if writes not in ([], ["self"]):
        raise GenError("structured_delegate: only 'self' may be written (the in-place variant)")
    if len(s.returns) != len(outs) or any(str(r.type) != "Tensor" for r in s.returns):
        raise GenError(f"structured_delegate: must return {len(outs)} Tensor(s), as "
                       f"{target.full_name} has outs")
    if writes and len(outs) != 1:
        raise GenError("structured_delegate: an in-place variant needs a single out")


def load_ops(path: str) -> list[Op]:
    with open(path) as f:
        text = f.read()
    entries = yaml.safe_load(text) or []
    if not isinstance(entries, list):
        raise GenError(f"{path}: expected a list of entries")
    # Each entry's line, so a registration's provenance names the yaml entry that made it.
    node = yaml.compose(text)
    lines = [n.start_mark.line + 1 for n in node.value] if node is not None else []
    short = os.path.join(os.path.basename(os.path.dirname(os.path.abspath(path))),
                         os.path.basename(path))
    ops, seen, cpp_sigs, by_name = [], set(), {}, {}
    delegates: list[tuple[Op, str, str]] = []
    for i, e in enumerate(entries):
        where = f"{path}: entry {i + 1}" + (f" ({e.get('func')})" if isinstance(e, dict) else "")
        try:
            if not isinstance(e, dict) or not isinstance(e.get("func"), str):
                raise GenError("expected a mapping with a 'func:' string")
            if set(e) - _KEYS:
                raise GenError(f"unknown keys {sorted(set(e) - _KEYS)}; allowed: {sorted(_KEYS)}")
            s = parse_schema(e["func"])
            variants = [v.strip() for v in str(e.get("variants", "function")).split(",")]
            if set(variants) - {"function", "method"}:
                raise GenError(f"variants: expected 'function' and/or 'method', got {variants}")
            op = Op(s, "function" in variants, "method" in variants, e.get("doc"),
                    e.get("cpp_overloads") or [])
            nd = e.get("cpp_no_default_args") or []
            if not isinstance(nd, list) or any(n not in {a.name for a in s.args} for n in nd):
                raise GenError("cpp_no_default_args: expected a list of the schema's argument names")
            op.no_default_args = nd
            if (s.name, s.overload) in seen:
                raise GenError("declared twice")
            if op.handle in seen:
                raise GenError(f"its handle name '{op.handle}' is taken by another entry")
            seen |= {(s.name, s.overload), op.handle}
            if op.method and not any(a.name == "self" and a.type.kind == "Tensor" for a in s.args):
                raise GenError("a method variant needs a 'Tensor self' argument")
            if op.method and s.out_args:
                raise GenError("out= operators are functions only (name_out / name_outf)")
            for o in op.cpp_overloads:
                if o == "derived":
                    continue
                if not isinstance(o, dict) or not isinstance(o.get("args"), list) or \
                        set(o) - {"args", "set", "types"}:
                    raise GenError("cpp_overloads: each item is `derived` or "
                                   "{args: [names], set: {name: value}, types: {name: int}}")
                for n, t in (o.get("types") or {}).items():
                    a = next((x for x in s.args if x.name == n), None)
                    if t != "int" or a is None or n not in o["args"] or \
                            str(a.type).rstrip("?") not in ("int", "int[]", "int[1]"):
                        raise GenError(f"cpp_overloads: types: '{n}: {t}': only an int or "
                                       "int list argument listed in args may be taken as `int`")
            # Build every C++ function now, so that each error names its entry.
            for method in [m for m, on in ((False, op.function), (True, op.method)) if on]:
                for fn in cpp_functions(op, method):
                    key = (method, fn.name, tuple(p.type for p in fn.params))
                    if key in cpp_sigs:
                        raise GenError(f"its C++ {declaration(fn)!r} is also generated for "
                                       f"{cpp_sigs[key]}")
                    cpp_sigs[key] = s.text
            if "dispatch" in e:
                op.dispatch = parse_dispatch(e["dispatch"])
            if e.get("structured", False) not in (True, False):
                raise GenError("structured: expected True or False")
            op.structured = e.get("structured", False)
            if op.structured:
                if not s.out_args or any(a.is_write for a in s.args if not a.kwarg_only):
                    raise GenError("structured: only an out= entry (keyword-only Tensor(a!) "
                                   "outs) is structured; its variants name it in "
                                   "structured_delegate")
                if not op.dispatch or set(op.dispatch) & set(COMPOSITE_KEYS) or \
                        "Meta" in op.dispatch:
                    raise GenError("structured: needs `dispatch:` with backend kernels (not "
                                   "composite; Meta comes from the shared meta function)")
            if "structured_delegate" in e:
                if op.dispatch or op.structured:
                    raise GenError("structured_delegate: the kernel is the delegate's; give no "
                                   "dispatch: or structured: here")
                delegates.append((op, str(e["structured_delegate"]), where))
            elif "pending" in e:
                if op.dispatch:
                    raise GenError("pending: an entry with kernels is not pending; drop the key")
                op.pending = str(e["pending"])
            elif not op.dispatch:
                raise GenError("no kernel: give `dispatch:` (a backend or composite kernel), "
                               "`structured_delegate:`, or `pending:`")
            if "plugin" in e:
                if e["plugin"] not in COMPOSITE_PLUGINS:
                    raise GenError(f"plugin: expected one of {', '.join(COMPOSITE_PLUGINS)}, "
                                   f"got {e['plugin']!r}")
                if set(op.dispatch) - set(COMPOSITE_KEYS) or not op.dispatch:
                    raise GenError("plugin: only a composite kernel (CompositeImplicitAutograd "
                                   "or CompositeExplicitAutograd) lives in a plugin")
                op.plugin = e["plugin"]
        except GenError as err:
            raise GenError(f"{where}: {err}") from None
        op.where = (short, lines[i])
        ops.append(op)
        by_name[op.full_name] = op
    for op, target, where in delegates:
        try:
            t = by_name.get(target)
            if t is None or not t.structured:
                raise GenError(f"structured_delegate: '{target}' is not a structured entry")
            check_delegate(op, t)
            op.delegate = t
        except GenError as err:
            raise GenError(f"{where}: {err}") from None
    return ops


# ---------------------------------------------------------------------------------------------
# Rendering.

BANNER = "// @generated by tools/codegen/gen.py from {yaml}: do not edit.\n"


def declaration(fn: CppFn) -> str:
    params = ", ".join(f"{p.type} {p.name}" + (f" = {p.default}" if p.default else "")
                       for p in fn.params)
    if fn.method:
        return f"{fn.ret} {fn.name}({params}) const;"
    return f"EMBER_API {fn.ret} {fn.name}({params});"


def definition(op: Op, fn: CppFn) -> str:
    params = ", ".join(f"{p.type} {p.name}" for p in fn.params)
    head = f"{fn.ret} Tensor::{fn.name}({params}) const" if fn.method else \
        f"{fn.ret} {fn.name}({params})"
    call = f"ops::{op.handle}().call({', '.join(fn.call_args)})"
    if not fn.options:
        return f"{head} {{\n  return {call};\n}}\n"
    return (f"{head} {{\n  Tensor result = {call};\n"
            f"  if (options.requires_grad_value()) result.requires_grad_(true);\n"
            f"  return result;\n}}\n")


def comment(op: Op) -> str:
    return f"// aten::{op.schema.text}\n" + (f"// {op.doc}\n" if op.doc else "")


def render_functions_h(ops: list[Op], yaml_name: str) -> str:
    out = [BANNER.format(yaml=yaml_name),
           "#pragma once\n// The typed operator functions. Tensor's operator methods are in "
           "TensorMethods.h.\n#include <limits>\n#include <optional>\n#include <string_view>\n"
           "#include <tuple>\n#include <vector>\n\n#include \"ember/dispatcher/Tensor.h\"\n\n"
           "namespace ember {\n"]
    for op in ops:
        if op.function:
            out.append("\n" + comment(op))
            out += [declaration(fn) + "\n" for fn in cpp_functions(op, False)]
    out.append("\nnamespace detail {\n// Looks every operator above up and checks its C++ "
               "signature against its schema; throws\n// on the first mismatch (tests call it).\n"
               "EMBER_API void check_generated_ops();\n}  // namespace detail\n\n"
               "}  // namespace ember\n")
    return "".join(out)


def render_tensor_methods_h(ops: list[Op], yaml_name: str) -> str:
    out = [BANNER.format(yaml=yaml_name),
           "// Included once, inside `class Tensor` (ember/dispatcher/Tensor.h): operator methods "
           "only.\n"]
    for op in ops:
        if op.method:
            out.append("\n" + comment(op))
            out += [declaration(fn) + "\n" for fn in cpp_functions(op, True)]
    return "".join(out)


def render_functions_cpp(ops: list[Op], yaml_name: str) -> str:
    out = [BANNER.format(yaml=yaml_name),
           "// Definitions of Functions.h and TensorMethods.h. Each operator's typed handle is "
           "looked up\n// once, on first use, and kept in a function-local static here (never "
           "in a header: see\n// ARCHITECTURE.md); typed<>() checks the C++ signature against "
           "the schema then.\n"
           "#include \"ember/generated/Functions.h\"\n\n#include \"ember/dispatcher/Dispatcher.h\"\n"
           "#include \"ember/generated/RedispatchFunctions.h\""
           "\n\nnamespace ember {\nnamespace {\n\ntemplate <class Sig>\nTypedOperatorHandle<Sig> "
           "lookup(std::string_view name, std::string_view overload) {\n"
           "  return Dispatcher::singleton().findSchemaOrThrow(name, overload).typed<Sig>();\n}\n"
           "\nnamespace ops {\n"]
    for op in ops:
        s = op.schema
        sig = f"{cpp_return_type(s.returns)}({', '.join(cpp_arg_type(a) for a in s.args)})"
        out.append(f"\n// aten::{s.text}\nconst auto& {op.handle}() {{\n"
                   f"  static const auto h = lookup<{sig}>(\"aten::{s.name}\", \"{s.overload}\");\n"
                   f"  return h;\n}}\n")
    out.append("\n}  // namespace ops\n}  // namespace\n")
    for op in ops:
        fns = (cpp_functions(op, False) if op.function else []) + \
              (cpp_functions(op, True) if op.method else [])
        out += ["\n" + definition(op, fn) for fn in fns]
    out.append("\nnamespace redispatch {\n")
    for op in ops:
        fn = redispatch_fn(op)
        params = ", ".join(f"{p.type} {p.name}" for p in fn.params)
        out.append(f"\n{fn.ret} {fn.name}({params}) {{\n"
                   f"  return ops::{op.handle}().redispatch({', '.join(['ks'] + fn.call_args)});\n}}\n")
    out.append("\n}  // namespace redispatch\n")
    out.append("\nnamespace detail {\nvoid check_generated_ops() {\n")
    out += [f"  ops::{op.handle}();\n" for op in ops]
    out.append("}\n}  // namespace detail\n\n}  // namespace ember\n")
    return "".join(out)


def render_register_schemas_cpp(ops: list[Op], yaml_name: str) -> str:
    out = [BANNER.format(yaml=yaml_name),
           "// Declares every built-in operator (namespace aten).\n"
           "#include \"ember/dispatcher/Library.h\"\n\nEMBER_LIBRARY(aten, m) {\n"]
    out += [f"  m.def({cpp_string(op.schema.text)});\n" for op in ops]
    out.append("}\n")
    return "".join(out)


# ---- kernels: declarations and registration files -------------------------------------------
#
# See Note [Structured kernels] in ember/plugin/Structured.h. A kernel named in `dispatch:` has
# the schema's C++ signature; a structured kernel has the out= schema's, returns void and takes
# a trailing `OutKind kind`. Functional and in-place variants (structured_delegate) call it
# through wrappers generated into the registration file; on Meta they call the shared meta
# function instead, so no backend writes a Meta kernel for a structured family.


def kernel_params(op: Op) -> list[Param]:
    ps = [Param(cpp_arg_type(a), a.name) for a in op.schema.args]
    return ps + [Param("OutKind", "kind")] if op.structured else ps


def kernel_decl(op: Op, fn: str) -> str:
    ret = "void" if op.structured else cpp_return_type(op.schema.returns)
    return f"{ret} {fn}({', '.join(f'{p.type} {p.name}' for p in kernel_params(op))});"


def backend_ns(key: str) -> str:
    return "ember::native" if key in COMPOSITE_KEYS + ("Composite",) else f"ember::{key.lower()}"


def kernel_for(op: Op, key: str) -> str | None:
    """The C++ function registered for `op` at `key`, or None when it has none there."""
    impl = op.delegate or op
    if impl.structured:
        if key == "Meta":
            return f"ember::native::{impl.meta_fn}"
        return f"{backend_ns(key)}::{impl.dispatch[key]}" if key in impl.dispatch else None
    return f"{backend_ns(key)}::{op.dispatch[key]}" if key in op.dispatch else None


def structured_wrapper(op: Op, target: str) -> str:
    """A variant of a structured family calling its implementation `target`."""
    impl, s = op.delegate or op, op.schema
    outs = [a.name for a in impl.schema.out_args]
    in_place = op is not impl and any(a.is_write for a in s.args)
    kind = "Out" if op is impl else "InPlace" if in_place else "Functional"
    call = [("self" if in_place else a.name) if a.name in outs else a.name
            for a in impl.schema.args]
    params = ", ".join(f"{cpp_arg_type(a)} {a.name}" for a in s.args)
    ret = cpp_return_type(s.returns)
    body = [f"  Tensor {', '.join(outs)};\n"] if kind == "Functional" else []
    body.append(f"  {target}({', '.join(call + [f'OutKind::{kind}'])});\n")
    if kind == "InPlace":
        body.append("  return self;\n")
    elif len(outs) == 1:
        body.append(f"  return {outs[0]};\n")
    elif kind == "Out":
        body.append(f"  return {ret}({', '.join(outs)});\n")
    else:
        body.append(f"  return {ret}({', '.join(f'std::move({o})' for o in outs)});\n")
    return f"{ret} wrapper_{op.handle}({params}) {{\n{''.join(body)}}}\n"


def backend_keys(ops: list[Op]) -> list[str]:
    keys = {k for op in ops for k in op.dispatch if k not in COMPOSITE_KEYS}
    if any(op.structured for op in ops):
        keys.add("Meta")
    return [k for k in BACKEND_KEYS if k in keys]


def render_decls_h(yaml_name: str, about: str, ns: str, decls: list[tuple[Op, str]]) -> str:
    """A header declaring kernels or meta functions: (entry, C++ name) pairs, each once."""
    body, declared = [], set()
    for op, fn in decls:
        d = kernel_decl(op, fn)
        if d not in declared:
            body.append(f"// aten::{op.schema.text}\n{d}\n")
            declared.add(d)
    # OutKind (the plugin SDK's) only where a structured kernel is declared.
    sdk = "#include \"ember/plugin/Structured.h\"\n" if any(op.structured for op, _ in decls) else ""
    return "".join([BANNER.format(yaml=yaml_name),
                    f"#pragma once\n{about}\n#include <optional>\n#include <string_view>\n#include <tuple>\n"
                    f"#include <vector>\n\n#include \"ember/dispatcher/Tensor.h\"\n{sdk}\nnamespace {ns} {{\n",
                    *body, f"\n}}  // namespace {ns}\n"])


def render_kernel_decls(ops: list[Op], key: str, yaml_name: str) -> str:
    """<Key>Functions.h: the kernels a backend (or, for composites, libember) must define."""
    decls = []
    for op in ops:
        fn = (op.dispatch.get("CompositeExplicitAutograd") or
              op.dispatch.get("CompositeImplicitAutograd")) if key == "Composite" \
            else op.dispatch.get(key)
        if fn and not (op.structured and key == "Meta"):
            decls.append((op, fn))
    return render_decls_h(yaml_name, f"// The kernels registered at {key}; defined by hand, registered "
                          f"by generated code.", backend_ns(key), decls)


def render_structured_meta_h(ops: list[Op], yaml_name: str) -> str:
    about = ("// The shared meta function of every structured family (Note [Structured kernels]):\n"
             "// checks, output dtype and size, and outputs allocated, resized or checked by `kind`.\n"
             "// Every backend's kernel calls it (or its parts); it is the Meta kernel.")
    return render_decls_h(yaml_name, about, "ember::native",
                          [(op, op.meta_fn) for op in ops if op.structured])


def render_register(ops: list[Op], keys: tuple[str, ...], header: str, yaml_name: str) -> str:
    """Register<Key>.cpp: one EMBER_LIBRARY_IMPL block per key, every m.impl generated."""
    out = [BANNER.format(yaml=yaml_name),
           f"#include \"ember/dispatcher/Library.h\"\n#include \"ember/generated/{header}\"\n"]
    if "Meta" in keys and any(op.structured for op in ops):
        out.append("#include \"ember/generated/StructuredMeta.h\"\n")
    out.append("\nusing namespace ember;\n")
    for key in keys:
        wrappers, lines = [], []
        for op in ops:
            fn = kernel_for(op, key)
            if fn is None:
                continue
            if (op.delegate or op).structured:
                wrappers.append(structured_wrapper(op, fn))
                fn = f"wrapper_{op.handle}"
            lines.append(f"  m.impl(\"{op.full_name}\", EMBER_FN({fn}), {{\"{op.where[0]}\", "
                         f"{op.where[1]}}});\n")
        if wrappers:
            out.append(f"\nnamespace {{\n\n{chr(10).join(wrappers)}\n}}  // namespace\n")
        if not lines:  # no kernel at this key
            continue
        out.append(f"\nEMBER_LIBRARY_IMPL(aten, {key}, m) {{\n{''.join(lines)}}}\n")
    return "".join(out)


# ---- the redispatch API (Note [Kernels that redispatch]) -------------------------------------


def redispatch_fn(op: Op) -> CppFn:
    s = op.schema
    names = [a.name for a in s.args]
    fn = build_fn(op, s.name + ("_outf" if s.out_args else ""), names, False, "none",
                  public=False)
    fn.params.insert(0, Param("DispatchKeySet", "ks"))
    fn.options = False
    return fn


def render_redispatch_h(ops: list[Op], yaml_name: str) -> str:
    out = [BANNER.format(yaml=yaml_name),
           "#pragma once\n// ember::redispatch::f(ks, args...): runs the kernel of the highest key "
           "of `ks`, as given\n// (no thread-local keys applied): how a layer such as autograd "
           "calls the keys below it.\n// Every operator, schema arguments in schema order (out= "
           "operators as name_outf), no defaults.\n#include <limits>\n#include <optional>\n"
           "#include <string_view>\n#include <tuple>\n#include <vector>\n\n"
           "#include \"ember/dispatcher/Tensor.h\"\n\nnamespace ember::redispatch {\n"]
    seen: dict[tuple, str] = {}
    for op in ops:
        fn = redispatch_fn(op)
        key = (fn.name, tuple(p.type for p in fn.params))
        if key in seen:
            raise GenError(f"redispatch: {declaration(fn)!r} is generated for both {seen[key]} "
                           f"and {op.full_name}")
        seen[key] = op.full_name
        out.append(f"\n// aten::{op.schema.text}\n{declaration(fn)}\n")
    out.append("\n}  // namespace ember::redispatch\n")
    return "".join(out)


def write_if_changed(path: str, text: str) -> None:
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--yaml", required=True, help="the operator catalogue (schemas/ops.yaml)")
    ap.add_argument("--out", required=True, help="output directory")
    args = ap.parse_args(argv)
    try:
        ops = load_ops(args.yaml)
        files = render_all(ops, os.path.basename(args.yaml))
    except (GenError, OSError, yaml.YAMLError) as err:
        print(f"gen.py: error: {err}", file=sys.stderr)
        return 1
    for rel, text in files.items():
        write_if_changed(os.path.join(args.out, rel), text)
    return 0


def render_all(ops: list[Op], name: str) -> dict[str, str]:
    """Every output file, by path under --out."""
    core = [op for op in ops if not op.plugin]
    files = {
        "include/ember/generated/Functions.h": render_functions_h(ops, name),
        "include/ember/generated/TensorMethods.h": render_tensor_methods_h(ops, name),
        "src/Functions.cpp": render_functions_cpp(ops, name),
        "src/RegisterSchemas.cpp": render_register_schemas_cpp(ops, name),
        "include/ember/generated/RedispatchFunctions.h": render_redispatch_h(ops, name),
        "include/ember/generated/CompositeFunctions.h": render_kernel_decls(core, "Composite", name),
        "src/RegisterComposite.cpp": render_register(core, COMPOSITE_KEYS, "CompositeFunctions.h",
                                                     name),
        "include/ember/generated/StructuredMeta.h": render_structured_meta_h(ops, name),
    }
    for key in backend_keys(ops):  # one declaration header and registration file per backend
        files[f"include/ember/generated/{key}Functions.h"] = render_kernel_decls(ops, key, name)
        files[f"src/Register{key}.cpp"] = render_register(ops, (key,), f"{key}Functions.h", name)
    for plugin in COMPOSITE_PLUGINS:  # composite kernels that live in a plugin
        mine = [op for op in ops if op.plugin == plugin]
        files[f"include/ember/generated/{plugin}/CompositeFunctions.h"] = \
            render_kernel_decls(mine, "Composite", name)
        files[f"src/{plugin}/RegisterComposite.cpp"] = \
            render_register(mine, COMPOSITE_KEYS, f"{plugin}/CompositeFunctions.h", name)
    return files


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
