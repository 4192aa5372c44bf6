#!/usr/bin/env python3
"""A rank for test_launch.py: reports what `ember run` gave it and misbehaves on request.

    launch_worker.py DIR [--fail-rank R --code C] [--kill-self-rank R --signal S] [--ignore-term]
                         [--grandchild] [--sleep SECONDS] [other args...]

Prints one JSON line (torchrun's variables, OMP_NUM_THREADS, its argv), writes DIR/rank_<r>.pids
("pid grandchild_pid") and DIR/rank_<r>.ready, records each stop signal it gets in
DIR/rank_<r>.signals, then exits as asked: with code C (rank R), by signal S (rank R), or after
sleeping.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

VARS = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_RANK",
        "ROLE_NAME", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID",
        "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "OMP_NUM_THREADS"]

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--fail-rank", type=int, default=-1)
p.add_argument("--code", type=int, default=1)
p.add_argument("--kill-self-rank", type=int, default=-1)
p.add_argument("--signal", type=int, default=signal.SIGKILL)
p.add_argument("--ignore-term", action="store_true")
p.add_argument("--grandchild", action="store_true")
p.add_argument("--sleep", type=float, default=0.0)
a, rest = p.parse_known_args()

rank = int(os.environ.get("RANK", "-1"))
base = os.path.join(a.dir, f"rank_{rank}")


def on_signal(sig, _frame):
    with open(base + ".signals", "a") as f:
        f.write(signal.Signals(sig).name + "\n")
    if not (a.ignore_term and sig == signal.SIGTERM):
        sys.exit(0)


for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, on_signal)

env = {k: os.environ.get(k) for k in VARS}
report = {"env": env, "argv": rest, "count": {k: sum(1 for e in os.environ if e == k) for k in VARS}}
# One write() each (atomic on a pipe below PIPE_BUF): the ranks share the launcher's stdout.
os.write(1, (json.dumps(report) + "\n").encode())
os.write(2, f"stderr of rank {rank}\n".encode())
child = subprocess.Popen(["sleep", "60"]) if a.grandchild else None
with open(base + ".pids", "w") as f:
    f.write(f"{os.getpid()} {child.pid if child else 0}\n")
open(base + ".ready", "w").close()

if rank == a.fail_rank:
    time.sleep(0.3)  # the others are up and sleeping by then
    sys.exit(a.code)
if rank == a.kill_self_rank:
    time.sleep(0.3)
    os.kill(os.getpid(), a.signal)
deadline = time.monotonic() + a.sleep
while time.monotonic() < deadline:
    time.sleep(0.05)
