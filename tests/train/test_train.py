#!/usr/bin/env python3
"""End-to-end tests of `ember train` on a slice of Fashion-MNIST (Debian's dataset-fashion-mnist).

    test_train.py EMBER_BINARY WORK_DIR [PYTHON_WITH_SAFETENSORS]

Checks the outputs (metrics.csv, training.png, best.safetensors with PyTorch's key names, read by
PyPI's safetensors when that Python is given), that a run stopped mid-epoch and resumed gives the
unbroken run's losses bit for bit, and that bad input gives a one-line error and a non-zero exit.
"""
import csv
import json
import os
import shutil
import subprocess
import sys

EMBER, WORK = sys.argv[1], sys.argv[2]
PY = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else ""
DATA = "/usr/share/datasets/fashion-mnist"
SMALL = ["--limit-train", "1024", "--limit-test", "512", "--batch-size", "64", "--threads", "1", "--seed", "7"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def train(*args, expect=0):
    r = subprocess.run([EMBER, "train", *args], capture_output=True, text=True)
    if r.returncode != expect:
        print(r.stdout, r.stderr)
    check(r.returncode == expect, f"ember train {' '.join(args)}: exit {r.returncode}, expected {expect}")
    return r


def rows(out):
    with open(os.path.join(out, "metrics.csv")) as f:
        return list(csv.DictReader(f))


if not os.path.isdir(DATA):
    print(f"SKIP: {DATA} is missing (apt install dataset-fashion-mnist)")
    sys.exit(0)
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# An unbroken 2-epoch run: 16 steps per epoch.
full = os.path.join(WORK, "full")
r = train(*SMALL, "--epochs", "2", "--out", full)
check("epoch 2/2" in r.stdout, "one line per epoch when stdout is not a terminal")
check("\r" not in r.stdout, "no progress bar when stdout is not a terminal")
with open(os.path.join(full, "metrics.csv")) as f:
    header = f.readline().strip()
check(header == "epoch,train_loss,train_acc,test_loss,test_acc,images_per_s,seconds", f"metrics.csv header: {header}")
m = rows(full)
check([x["epoch"] for x in m] == ["1", "2"], "two epochs in metrics.csv")
for x in m:
    for k in ("train_acc", "test_acc"):
        check(0.0 <= float(x[k]) <= 1.0, f"{k} is a fraction: {x[k]}")
    check(float(x["train_loss"]) > 0 and float(x["images_per_s"]) > 0, "positive loss and speed")
check(float(m[1]["train_loss"]) < float(m[0]["train_loss"]), "the training loss falls")
check(float(m[1]["test_acc"]) > 0.5, f"learns something on 1024 images: test accuracy {m[1]['test_acc']}")
with open(os.path.join(full, "training.png"), "rb") as f:
    png = f.read()
check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000, "training.png is a PNG")
for name in ("best.safetensors", "last.ckpt.safetensors"):
    check(os.path.getsize(os.path.join(full, name)) > 100_000, f"{name} written")

# Stopped after 20 steps (4 into epoch 2), then resumed: the same losses, bit for bit.
part = os.path.join(WORK, "part")
r = train(*SMALL, "--epochs", "2", "--out", part, "--stop-after-steps", "20")
check("stopped at epoch 2, step 4/16" in r.stdout, f"stop message: {r.stdout.strip().splitlines()[-1:]}")
resumed = os.path.join(WORK, "resumed")
r = train("--resume", os.path.join(part, "last.ckpt.safetensors"), "--epochs", "2", "--threads", "1",
          "--out", resumed)
check("resuming from" in r.stdout, "resume message")
a, b = rows(full), rows(resumed)
for k in ("train_loss", "train_acc", "test_loss", "test_acc"):
    check([x[k] for x in a] == [x[k] for x in b], f"resumed {k} equals the unbroken run's: {[x[k] for x in a]} vs {[x[k] for x in b]}")

# best.safetensors: PyTorch's names for nn.Sequential(Conv2d, ReLU, MaxPool2d, Conv2d, ReLU, MaxPool2d,
# Flatten, Linear), read by the reference implementation.
if PY:
    script = (
        "import sys\nfrom safetensors.numpy import load_file\n"
        "t = load_file(sys.argv[1])\n"
        "print(sorted((k, tuple(v.shape), str(v.dtype)) for k, v in t.items()))\n")
    r = subprocess.run([PY, "-c", script, os.path.join(full, "best.safetensors")], capture_output=True, text=True)
    want = str(sorted([("0.bias", (32,), "float32"), ("0.weight", (32, 1, 3, 3), "float32"),
                       ("3.bias", (64,), "float32"), ("3.weight", (64, 32, 3, 3), "float32"),
                       ("7.bias", (10,), "float32"), ("7.weight", (10, 1600), "float32")]))
    check(r.stdout.strip() == want, f"best.safetensors through PyPI safetensors: {r.stdout.strip()} {r.stderr}")
else:
    print("SKIP: no Python with safetensors; best.safetensors checked by size only")

# Two processes (DDP over Gloo, `ember run` started by --nproc-per-node): batch 32 each, a global
# batch of 64 as above; rank 0 alone prints and writes; a run stopped mid-epoch and resumed by two
# processes gives the unbroken two-process run's metrics.
DDP = ["--limit-train", "1024", "--limit-test", "512", "--batch-size", "32", "--threads", "1", "--seed", "7"]
ddp_full = os.path.join(WORK, "ddp_full")
r = train("--nproc-per-node", "2", *DDP, "--epochs", "2", "--out", ddp_full)
check("2 processes (global batch 64)" in r.stdout, f"the run names its processes: {r.stdout.strip().splitlines()[-4:]}")
check(r.stdout.count("epoch 2/2") == 1, "only rank 0 prints")
d = rows(ddp_full)
check([x["epoch"] for x in d] == ["1", "2"], "two epochs in the 2-process metrics.csv")
check(float(d[1]["train_loss"]) < float(d[0]["train_loss"]), "the 2-process training loss falls")
check(float(d[1]["test_acc"]) > 0.5, f"2 processes learn: test accuracy {d[1]['test_acc']}")
# The test set is split without padding and the sums all-reduced: accuracies are k/512.
check(all((float(x["test_acc"]) * 512).is_integer() for x in d), "exact test accuracy over all 512 images")
ddp_part = os.path.join(WORK, "ddp_part")
r = train("--nproc-per-node", "2", *DDP, "--epochs", "2", "--out", ddp_part, "--stop-after-steps", "20")
check("stopped at epoch 2, step 4/16" in r.stdout, f"2-process stop message: {r.stdout.strip().splitlines()[-1:]}")
ddp_resumed = os.path.join(WORK, "ddp_resumed")
r = train("--nproc-per-node", "2", "--resume", os.path.join(ddp_part, "last.ckpt.safetensors"), "--epochs", "2",
          "--threads", "1", "--out", ddp_resumed)
a, b = rows(ddp_full), rows(ddp_resumed)
for k in ("train_acc", "test_loss", "test_acc"):
    check([x[k] for x in a] == [x[k] for x in b],
          f"2-process resumed {k} equals the unbroken run's: {[x[k] for x in a]} vs {[x[k] for x in b]}")
# The resumed epoch's loss sum is added up in another order (the checkpoint's total + the rest).
check(all(abs(float(x["train_loss"]) - float(y["train_loss"])) <= 1e-12 * float(x["train_loss"]) for x, y in zip(a, b)),
      f"2-process resumed train_loss: {[x['train_loss'] for x in a]} vs {[x['train_loss'] for x in b]}")
r = train("--resume", os.path.join(ddp_part, "last.ckpt.safetensors"), "--epochs", "2", expect=1)
check("written by a run of 2 process(es), this run has 1" in r.stderr, f"resume with another world size: {r.stderr!r}")

# Post-training quantization of the best model (the quantized plugin's int8 kernels): the float
# model evaluates as in training, the int8 one within 2 points on these 512 images.
qdir = os.path.join(WORK, "quant")
r = train("--quantize", "--checkpoint", os.path.join(full, "best.safetensors"), "--calib-batches", "4", *SMALL,
          "--out", qdir)
check("quantize: x86 qconfig, fused 2 pair(s), calibrated on 4 batch(es) of 64" in r.stdout, f"--quantize output: {r.stdout!r}")
with open(os.path.join(qdir, "quantized.json")) as f:
    q = json.load(f)
best_acc = max(float(x["test_acc"]) for x in m)
check(q["float_test_acc"] == best_acc, f"quantized.json float_test_acc {q['float_test_acc']} vs best {best_acc}")
check(abs(q["int8_test_acc"] - q["float_test_acc"]) <= 0.02, f"int8 {q['int8_test_acc']} vs float {q['float_test_acc']}")
check(q["calibration_batches"] == 4 and q["int8_images_per_s"] > 0, f"quantized.json: {q}")
check("QuantizedConvReLU2d(1, 32, kernel_size=[3, 3]" in q["int8_model"], f"int8 model: {q['int8_model']}")

# --device cuda on the cuda plugin's sources run on the host (libember-cuda-emulated.so, Note [The
# emulated cuda plugin]): the CNN's forward, backward and SGD steps on "cuda" tensors give the cpu
# run's losses up to rounding (different summation orders).
EMULATED = os.path.join(os.path.dirname(EMBER), "..", "lib", "ember", "plugins", "libember-cuda-emulated.so")
if os.path.exists(EMULATED):
    tiny = ["--limit-train", "96", "--limit-test", "64", "--batch-size", "32", "--threads", "1", "--seed", "5",
            "--epochs", "1"]
    env = dict(os.environ, EMBER_DEFAULT_PLUGINS="cpu,meta,autograd,nn,sparse,quantized,cuda-emulated")
    runs = {}
    for dev in ("cpu", "cuda"):
        out = os.path.join(WORK, "emulated-" + dev)
        r = subprocess.run([EMBER, "train", *tiny, "--device", dev, "--out", out], capture_output=True, text=True,
                           env=env)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
        check(r.returncode == 0, f"ember train --device {dev} with cuda-emulated loaded: exit {r.returncode}")
        runs[dev] = rows(out)[0] if r.returncode == 0 else None
    if runs["cpu"] and runs["cuda"]:
        for k in ("train_loss", "test_loss"):
            a, b = float(runs["cpu"][k]), float(runs["cuda"][k])
            check(abs(a - b) <= 1e-4 * max(1.0, abs(a)), f"--device cuda (emulated) {k} {b} vs the cpu's {a}")
        check(abs(float(runs["cpu"]["test_acc"]) - float(runs["cuda"]["test_acc"])) <= 0.02,
              f"--device cuda (emulated) test_acc {runs['cuda']['test_acc']} vs the cpu's {runs['cpu']['test_acc']}")
else:
    print("note: no libember-cuda-emulated.so next to the binary; --device cuda not run")

# Bad input: one line on stderr, a non-zero exit, no stack trace.
for args, code, text in [
    (["--epochs", "x"], 2, "--epochs"),
    (["--optimizer", "lbfgs"], 2, "--optimizer"),
    (["--bogus"], 2, "--bogus"),
    (["--data", os.path.join(WORK, "nowhere")] + SMALL, 1, "nowhere"),
    (["--resume", os.path.join(WORK, "nope.safetensors")], 1, "--resume"),
    (["--resume", os.path.join(full, "metrics.csv")], 1, "--resume"),
    (["--resume", os.path.join(full, "best.safetensors")], 1, "not a training checkpoint"),
    (["--device", "cuda"] + SMALL, 1, "cuda"),
    (["--nproc-per-node", "0"], 2, "--nproc-per-node"),
    (["--checkpoint", os.path.join(full, "best.safetensors")], 1, "needs --quantize"),
    (["--quantize", "--calib-batches", "0"] + SMALL, 1, "--calib-batches"),
    (["--quantize", "--qconfig", "arm"], 2, "--qconfig"),
    (["--quantize", "--checkpoint", os.path.join(full, "metrics.csv")] + SMALL, 1, "--checkpoint"),
    (["--quantize", "--model", "mlp", "--checkpoint", os.path.join(full, "best.safetensors")] + SMALL, 1,
     "load_state_dict"),
]:
    r = train(*args, expect=code)
    err = r.stderr.strip()
    check(len(err.splitlines()) == 1 and err.startswith("ember train: error:") and text in err,
          f"ember train {' '.join(args)}: one-line error naming {text!r}: {err!r}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("ember train: all checks passed")
