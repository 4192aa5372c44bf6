#!/usr/bin/env python3
"""`ember run` end to end: torchrun's environment per rank, a failing rank stopping the others
(a hanging one killed), the failure summary, signals forwarded to the ranks, --log-dir, bad flags.

    test_launch.py EMBER_BINARY

The ranks are launch_worker.py (this directory) under this Python.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

EMBER = sys.argv.pop(1) if len(sys.argv) > 1 else "ember"
WORKER = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch_worker.py")]
DEADLINE = 60  # seconds for any one launch: a hung launcher fails the test instead of hanging it


def still_alive(pids, within=5.0):
    """The pids still alive after waiting up to `within` s: a signal is delivered asynchronously, and
    the launcher does not wait for what the ranks left behind after sending it SIGTERM."""
    t0 = time.monotonic()
    while any(p and alive(p) for p in pids) and time.monotonic() - t0 < within:
        time.sleep(0.02)
    return [p for p in pids if p and alive(p)]


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead too (its parent has not reaped it yet).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Launch(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ember_launch_")
        self.env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}

    def tearDown(self):
        for pid in self.pids():  # never leave a rank behind, whatever failed
            if pid and alive(pid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.dir, ignore_errors=True)

    def pids(self):
        out = []
        for name in os.listdir(self.dir):
            if name.endswith(".pids"):
                with open(os.path.join(self.dir, name)) as f:
                    out += [int(x) for x in f.read().split()]
        return out

    def run_ember(self, args, worker_args=(), env=None, timeout=DEADLINE):
        cmd = [EMBER, "run", *args, "--", *WORKER, self.dir, *worker_args]
        return subprocess.run(cmd, capture_output=True, text=True, env=env or self.env, timeout=timeout)

    def reports(self, stdout):
        return sorted((json.loads(line) for line in stdout.splitlines() if line.startswith("{")),
                      key=lambda r: int(r["env"]["RANK"]))

    def signals(self, rank):
        path = os.path.join(self.dir, f"rank_{rank}.signals")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return f.read().split()

    # ---- the environment -------------------------------------------------------------------

    def test_env_single_node(self):
        env = dict(self.env, RANK="99", MASTER_PORT="1")  # replaced, not duplicated
        r = self.run_ember(["--nproc-per-node", "3", "--master-port", "29611"], ["-x", "--y"], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        reps = self.reports(r.stdout)
        self.assertEqual(len(reps), 3, r.stdout)
        for local, rep in enumerate(reps):
            self.assertEqual(rep["env"], {
                "RANK": str(local), "LOCAL_RANK": str(local), "WORLD_SIZE": "3", "LOCAL_WORLD_SIZE": "3",
                "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "1", "ROLE_RANK": str(local), "ROLE_NAME": "default",
                "ROLE_WORLD_SIZE": "3", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29611",
                "TORCHELASTIC_RUN_ID": "none", "TORCHELASTIC_RESTART_COUNT": "0",
                "TORCHELASTIC_MAX_RESTARTS": "0", "OMP_NUM_THREADS": "1"})
            self.assertTrue(all(n == 1 for n in rep["count"].values()), rep["count"])
            self.assertEqual(rep["argv"], ["-x", "--y"])
        # torchrun's note about OMP_NUM_THREADS, on stderr, once.
        self.assertEqual(r.stderr.count("Setting OMP_NUM_THREADS environment variable for each process to be 1"), 1)
        self.assertNotIn("Setting OMP_NUM_THREADS", r.stdout)

    def test_env_multi_node(self):
        r = self.run_ember(["--nnodes", "3", "--node-rank", "2", "--nproc-per-node", "2", "--master-addr", "10.1.2.3",
                            "--master-port", "4242", "--rdzv-id", "job7"])
        self.assertEqual(r.returncode, 0, r.stderr)
        reps = self.reports(r.stdout)
        self.assertEqual([(x["env"]["RANK"], x["env"]["LOCAL_RANK"]) for x in reps], [("4", "0"), ("5", "1")])
        for x in reps:
            e = x["env"]
            self.assertEqual((e["WORLD_SIZE"], e["LOCAL_WORLD_SIZE"], e["GROUP_RANK"], e["GROUP_WORLD_SIZE"],
                              e["ROLE_WORLD_SIZE"], e["ROLE_RANK"]), ("6", "2", "2", "3", "6", e["RANK"]))
            self.assertEqual((e["MASTER_ADDR"], e["MASTER_PORT"], e["TORCHELASTIC_RUN_ID"]), ("10.1.2.3", "4242", "job7"))

    def test_omp_num_threads_kept_and_single_rank(self):
        r = self.run_ember(["--nproc-per-node", "2"], env=dict(self.env, OMP_NUM_THREADS="3"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([x["env"]["OMP_NUM_THREADS"] for x in self.reports(r.stdout)], ["3", "3"])
        self.assertNotIn("OMP_NUM_THREADS", r.stderr)
        r = self.run_ember(["--nproc-per-node", "1"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIsNone(self.reports(r.stdout)[0]["env"]["OMP_NUM_THREADS"])
        self.assertEqual(r.stderr, "stderr of rank 0\n")

    def test_program_without_separator_keeps_its_flags(self):
        cmd = [EMBER, "run", "--nproc_per_node", "1", *WORKER, self.dir, "--nproc-per-node", "5"]
        r = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=DEADLINE)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.reports(r.stdout)
        self.assertEqual(len(rep), 1)
        self.assertEqual(rep[0]["argv"], ["--nproc-per-node", "5"])

    # ---- failures ------------------------------------------------------------------------

    def test_failing_rank_stops_the_others(self):
        t0 = time.monotonic()
        r = self.run_ember(["--nproc-per-node", "3"], ["--fail-rank", "1", "--code", "3", "--grandchild",
                                                       "--sleep", "60"])
        elapsed = time.monotonic() - t0
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertLess(elapsed, 20)  # not the others' 60 s
        self.assertIn("ember run: rank 1 (local_rank 1, pid ", r.stderr)
        self.assertIn(") exited with code 3\n", r.stderr)
        self.assertIn("sending SIGTERM to rank(s) 0 (pid ", r.stderr)
        summary = r.stderr[r.stderr.index("=" * 60):]
        self.assertRegex(summary, r"\n\S*python\S* FAILED\n")
        self.assertIn("Failures:\n  <NO_OTHER_FAILURES>\n", summary)
        root = summary[summary.index("Root Cause (first observed failure):"):]
        self.assertIn("[0]:\n", root)
        self.assertIn("  rank      : 1 (local_rank: 1)\n", root)
        self.assertRegex(root, r"  exitcode  : 3 \(pid: \d+\)\n")
        self.assertRegex(root, r"  time      : \d{4}-\d\d-\d\d_\d\d:\d\d:\d\d\n")
        # The stopped ranks got SIGTERM once and are gone, with what they started.
        self.assertEqual(self.signals(0), ["SIGTERM"])
        self.assertEqual(self.signals(2), ["SIGTERM"])
        self.assertEqual(self.signals(1), [])
        pids = self.pids()
        self.assertEqual(len(pids), 6)
        self.assertEqual(still_alive(pids), [])

    def test_hanging_rank_is_killed(self):
        t0 = time.monotonic()
        r = self.run_ember(["--nproc-per-node", "2", "--grace-period", "1"],
                           ["--fail-rank", "0", "--code", "7", "--ignore-term", "--grandchild", "--sleep", "60"])
        elapsed = time.monotonic() - t0
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertGreater(elapsed, 1.0)  # it waited the grace period ...
        self.assertLess(elapsed, 15)  # ... and no longer
        self.assertIn("sending SIGTERM to rank(s) 1 (pid ", r.stderr)
        self.assertRegex(r.stderr, r"rank\(s\) still running 1 s after the stop signal; sending SIGKILL to rank\(s\) "
                                   r"1 \(pid \d+\)")
        root = r.stderr[r.stderr.index("Root Cause"):]
        self.assertIn("  rank      : 0 (local_rank: 0)\n", root)
        self.assertRegex(root, r"  exitcode  : 7 \(pid: \d+\)\n")
        self.assertEqual(self.signals(1), ["SIGTERM"])
        self.assertEqual(still_alive(self.pids()), [])

    def test_rank_killed_by_a_signal(self):
        r = self.run_ember(["--nproc-per-node", "2"], ["--kill-self-rank", "1", "--signal", "11", "--sleep", "60"])
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertRegex(r.stderr, r"rank 1 \(local_rank 1, pid \d+\) was killed by SIGSEGV\n")
        root = r.stderr[r.stderr.index("Root Cause"):]
        self.assertRegex(root, r"  exitcode  : -11 \(pid: (\d+)\)\n  traceback : Signal 11 \(SIGSEGV\) received by "
                               r"PID \d+\n")

    def test_several_failures_are_all_listed(self):
        # Both ranks fail in the same instant: one is the root cause, the other listed beside it.
        cmd = [EMBER, "run", "--nproc-per-node", "2", "--", "sh", "-c", "exit $((RANK + 4))"]
        r = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=DEADLINE)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("\nsh FAILED\n", r.stderr)
        self.assertEqual(len([ln for ln in r.stderr.splitlines() if ln.startswith("  exitcode  : ")]),
                         r.stderr.count(") exited with code "))
        codes = sorted(int(ln.split()[2]) for ln in r.stderr.splitlines() if ln.startswith("  exitcode  : "))
        self.assertTrue(codes in ([4], [5], [4, 5]), r.stderr)

    def test_what_ranks_leave_behind_is_stopped(self):
        r = self.run_ember(["--nproc-per-node", "2"], ["--grandchild"])
        self.assertEqual(r.returncode, 0, r.stderr)
        grandchildren = self.pids()[1::2]
        self.assertTrue(all(grandchildren) and len(grandchildren) == 2, grandchildren)
        self.assertEqual(still_alive(grandchildren), [])

    def test_program_that_cannot_start(self):
        r = subprocess.run([EMBER, "run", "--nproc-per-node", "2", "/nonexistent/prog"], capture_output=True,
                           text=True, env=self.env, timeout=DEADLINE)
        self.assertEqual(r.returncode, 1)
        self.assertIn("ember run: error: cannot start '/nonexistent/prog' (rank 0): No such file or directory\n",
                      r.stderr)

    # ---- signals -------------------------------------------------------------------------

    def launch_and_signal(self, sigs, args, worker_args, nproc=2):
        cmd = [EMBER, "run", "--nproc-per-node", str(nproc), *args, "--", *WORKER, self.dir, "--sleep", "60",
               *worker_args]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
        try:
            t0 = time.monotonic()
            while sum(n.endswith(".ready") for n in os.listdir(self.dir)) < nproc:
                self.assertLess(time.monotonic() - t0, 20, "the ranks did not start")
                time.sleep(0.02)
            t0 = time.monotonic()
            for s in sigs:
                p.send_signal(s)
                time.sleep(0.2)
            out, err = p.communicate(timeout=DEADLINE)
            return p.returncode, out, err, time.monotonic() - t0
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()

    def test_sigterm_is_forwarded(self):
        rc, _, err, _ = self.launch_and_signal([signal.SIGTERM], [], [])
        self.assertEqual(rc, 128 + signal.SIGTERM, err)
        self.assertIn("ember run: received SIGTERM\n", err)
        self.assertNotIn("FAILED", err)  # the ranks stopped because they were asked to
        self.assertEqual([self.signals(0), self.signals(1)], [["SIGTERM"], ["SIGTERM"]])

    def test_sigint_is_forwarded(self):
        rc, _, err, _ = self.launch_and_signal([signal.SIGINT], [], [])
        self.assertEqual(rc, 128 + signal.SIGINT, err)
        self.assertEqual([self.signals(0), self.signals(1)], [["SIGINT"], ["SIGINT"]])

    def test_second_signal_kills_at_once(self):
        rc, _, err, elapsed = self.launch_and_signal([signal.SIGTERM, signal.SIGTERM], ["--grace-period", "30"],
                                                     ["--ignore-term"])
        self.assertEqual(rc, 128 + signal.SIGTERM, err)
        self.assertLess(elapsed, 10)  # not the 30 s grace period
        self.assertIn("received SIGTERM while stopping; sending SIGKILL to rank(s) 0 (pid ", err)
        self.assertEqual(still_alive(self.pids()), [])

    # ---- --log-dir -----------------------------------------------------------------------

    def test_log_dir(self):
        logs = os.path.join(self.dir, "logs", "nested")
        r = self.run_ember(["--nproc-per-node", "2", "--log-dir", logs], ["--fail-rank", "1", "--code", "2"])
        self.assertEqual(r.returncode, 1)
        self.assertEqual(sorted(os.listdir(logs)), ["rank_0.log", "rank_1.log"])
        for rank in (0, 1):
            with open(os.path.join(logs, f"rank_{rank}.log")) as f:
                text = f.read()
            self.assertEqual(json.loads(text.splitlines()[0])["env"]["RANK"], str(rank))
            self.assertIn(f"stderr of rank {rank}\n", text)
            # ... and the console still shows it, each stream on its own.
            self.assertIn(f"stderr of rank {rank}\n", r.stderr)
        self.assertEqual(len(self.reports(r.stdout)), 2)
        self.assertIn(f"  log       : {logs}/rank_1.log\n", r.stderr)

    def test_log_dir_that_cannot_be_made(self):
        blocker = os.path.join(self.dir, "file")
        open(blocker, "w").close()
        r = self.run_ember(["--log-dir", os.path.join(blocker, "sub")])
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, r"^ember run: error: --log-dir .*/file/sub: Not a directory\n$")
        self.assertEqual(self.pids(), [])  # nothing started

    # ---- bad flags -----------------------------------------------------------------------

    def test_bad_flags(self):
        cases = [
            ([], "expected a program to run after the options"),
            (["--"], "expected a program to run after the options"),
            (["--nproc-per-node", "0", "x"], "--nproc-per-node: expected a positive integer, got '0'"),
            (["--nproc-per-node", "two", "x"], "--nproc-per-node: expected a positive integer, got 'two'"),
            (["--nnodes", "1:2", "x"], "--nnodes: expected a positive integer (elastic MIN:MAX ranges are not "
                                       "supported), got '1:2'"),
            (["--nnodes", "2", "--node-rank", "2", "x"], "--node-rank: expected 0..1 (--nnodes 2), got 2"),
            (["--node-rank", "-1", "x"], "--node-rank: expected a non-negative integer, got '-1'"),
            (["--master-port", "65536", "x"], "--master-port: expected a port number 1..65535, got '65536'"),
            (["--master-addr", "", "x"], "--master-addr: expected a host name or address, got ''"),
            (["--grace-period", "-2", "x"], "--grace-period: expected seconds in 0..3600, got '-2'"),
            (["--bogus", "x"], "unknown option --bogus"),
            (["--nnodes", "65536", "--nproc-per-node", "65536", "x"],
             "--nnodes 65536 x --nproc-per-node 65536: expected a world size up to 2147483647"),
            (["--nproc-per-node"], "--nproc-per-node"),
        ]
        for args, msg in cases:
            with self.subTest(args=args):
                r = subprocess.run([EMBER, "run", *args], capture_output=True, text=True, env=self.env,
                                   timeout=DEADLINE)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(r.stdout, "")
                lines = r.stderr.splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertTrue(lines[0].startswith("ember run: error: "), lines[0])
                self.assertIn(msg, lines[0])
                self.assertTrue(lines[0].endswith(" (see ember run --help)"), lines[0])

    def test_help(self):
        r = subprocess.run([EMBER, "run", "--help"], capture_output=True, text=True, timeout=DEADLINE)
        self.assertEqual(r.returncode, 0)
        for flag in ("--nproc-per-node", "--nnodes", "--node-rank", "--master-addr", "--master-port", "--log-dir"):
            self.assertIn(flag, r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
