"""The Python side of tests/serialize/test_interop.cpp, with PyPI's safetensors and numpy.

  interop.py write DIR   writes DIR/py_<set>.safetensors with the reference writer
  interop.py check DIR   checks DIR/ember_<set>.safetensors (written by Ember) with the reference
                         reader; prints "ok" and exits 0, or says what differs and exits 1

The sets and the value pattern are the ones SerializeTestUtil.h and test_interop.cpp build.
"""
import sys

import numpy as np
from safetensors import TensorSpec, deserialize, safe_open, serialize_file
from safetensors.numpy import load_file

# format dtype -> (TensorSpec dtype, numpy dtype of the raw data)
DTYPES = {
    "BOOL": ("bool", np.bool_), "U8": ("uint8", np.uint8), "I8": ("int8", np.int8),
    "I16": ("int16", np.int16), "I32": ("int32", np.int32), "I64": ("int64", np.int64),
    "F16": ("float16", np.float16), "BF16": ("bfloat16", np.uint16), "F32": ("float32", np.float32),
    "F64": ("float64", np.float64),
}


def pattern(dt, shape):
    """Element i: bool i % 2 == 1, uint8 40 i mod 256, signed integers i - 3, floating (i - 3) / 2.
    BF16 comes back as its raw 16 bits (the values are exact, so truncating float32 is exact)."""
    i = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
    if dt == "BOOL":
        a = i % 2 == 1
    elif dt == "U8":
        a = (i * 40 % 256).astype(np.uint8)
    elif dt[0] == "I":
        a = (i - 3).astype(DTYPES[dt][1])
    elif dt == "BF16":
        a = (((i - 3) / 2).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        a = ((i - 3) / 2).astype(DTYPES[dt][1])
    return a.reshape(shape).copy()  # C order (ascontiguousarray would make a 0-d array 1-d)


def sets():
    """name -> (tensors {name: (dtype, shape)}, metadata)"""
    every = {f"{dt.lower()}_2x3": (dt, (2, 3)) for dt in DTYPES}
    every.update({"scalar_f64": ("F64", ()), "scalar_bool": ("BOOL", ()), "empty_f32": ("F32", (0,)),
                  "empty_i64": ("I64", (2, 0)), "wide_f32": ("F32", (33, 64))})
    names = {n: ("U8", (1,)) for n in
             ['q"b', "back\\slash", "new\nline", "tab\tx", "ctrl\x01", "del\x7f", "\u00fcn\u00ef\u2603", "slash/x",
              "", "model.layers.0.weight"]}
    return {
        "every": (every, {"format": "pt"}),
        "names": (names, {"note": 'a "quoted"\nvalue \u2603'}),
        "plain": ({"w": ("F32", (3, 4)), "b": ("F32", (4,)), "steps": ("I64", ())}, None),
    }


def write(directory):
    for set_name, (tensors, metadata) in sets().items():
        arrays = {name: pattern(dt, shape) for name, (dt, shape) in tensors.items()}
        specs = {name: TensorSpec(dtype=DTYPES[tensors[name][0]][0], shape=a.shape, data_ptr=a.ctypes.data,
                                  data_len=a.nbytes) for name, a in arrays.items()}
        serialize_file(specs, f"{directory}/py_{set_name}.safetensors", metadata=metadata)


def check(directory):
    problems = []
    for set_name, (tensors, metadata) in sets().items():
        path = f"{directory}/ember_{set_name}.safetensors"
        with open(path, "rb") as f:
            raw = {name: info for name, info in deserialize(f.read())}
        if sorted(raw) != sorted(tensors):
            problems.append(f"{path}: names {sorted(raw)} != {sorted(tensors)}")
            continue
        for name, (dt, shape) in tensors.items():
            info = raw[name]
            if info["dtype"] != dt or tuple(info["shape"]) != shape:
                problems.append(f"{path}: {name!r} is {info['dtype']} {info['shape']}, expected {dt} {list(shape)}")
            elif bytes(info["data"]) != pattern(dt, shape).tobytes():
                problems.append(f"{path}: {name!r} has other values")
        with safe_open(path, framework="np") as f:
            if f.metadata() != metadata:
                problems.append(f"{path}: metadata {f.metadata()!r} != {metadata!r}")
            # The file's order is the reference writer's: dtype alignment descending, then name.
            order = sorted(tensors, key=lambda n: (-RANK[tensors[n][0]], n))
            if f.offset_keys() != order:
                problems.append(f"{path}: offset order {f.offset_keys()} != {order}")
        if "BF16" not in {dt for dt, _ in tensors.values()}:
            for name, a in load_file(path).items():  # numpy's own view of the file
                if not np.array_equal(a, pattern(*tensors[name])):
                    problems.append(f"{path}: numpy reads {name!r} as {a}")
    print("\n".join(problems) if problems else "ok")
    return 1 if problems else 0


# The reference's dtype enum order among Ember's dtypes (its writer sorts by it, descending).
RANK = {dt: r for r, dt in enumerate(["BOOL", "U8", "I8", "I16", "F16", "BF16", "I32", "F32", "F64", "I64"])}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        sys.exit(__doc__)
    sys.exit(write(sys.argv[2]) if sys.argv[1] == "write" else check(sys.argv[2]))
