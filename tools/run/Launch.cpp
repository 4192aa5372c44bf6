// `ember run`: torchrun's launcher. Starts --nproc-per-node copies of a program on this node with
// torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, ...), waits for all of them,
// and when one fails stops the others and exits 1 with a summary naming the failed ranks.
//
// Note [The launcher's processes]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each rank starts in a session of its own (as torchrun's ranks do), so stopping a rank signals
// its whole process group (whatever it started goes too), and a terminal's Ctrl-C reaches the
// launcher alone, which forwards it once. The launcher blocks SIGCHLD and the stop signals and
// reads them from a signalfd polled together with the ranks' output pipes (--log-dir) under the
// grace period's deadline: it sleeps until something happens, never spins. The first rank seen
// to exit non-zero or by a signal is the root cause; the ranks' groups then get SIGTERM, and
// SIGKILL after --grace-period if a rank still runs. When all ranks have exited, their groups
// get SIGTERM (as at torchrun's shutdown), so nothing a rank started outlives the launcher. A
// SIGINT/SIGTERM/SIGHUP/SIGQUIT to the launcher is forwarded the same way (a second one kills at
// once), and the launcher then exits 128 + its number.
#include "Launch.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace ember::run {
namespace {

namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

struct Config {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string rdzv_id = "none";
  std::string log_dir;
  double grace_period = 5.0;  // seconds between SIGTERM and SIGKILL
  std::vector<std::string> command;
};

struct Rank {
  int local_rank = 0, rank = 0;
  pid_t pid = -1;
  bool running = false;
  int status = 0;  // waitpid's
  std::time_t ended = 0;
  int out = -1, err = -1;  // read ends of the rank's stdout/stderr pipes (--log-dir only)
  int log = -1;
  std::string log_path;
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

bool failed(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

// torchrun's exitcode: the exit status, or minus the signal's number.
int exitcode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status); }

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // a closed console or a full disk must not stop the ranks
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// An integer flag in [min, max] (CLI11's own checks print their range as doubles).
CLI::Validator int_in(long min, long max, const char* what) {
  return CLI::Validator(
      [min, max, what](std::string& s) -> std::string {
        size_t used = 0;
        long v = 0;
        try {
          v = std::stol(s, &used);
        } catch (const std::exception&) {
          used = std::string::npos;
        }
        if (used != s.size() || v < min || v > max) return fmt::format("expected {}, got '{}'", what, s);
        return "";
      },
      what);
}

// Exit status for a bad command line (2), or nullopt to go on.
std::optional<int> parse(int argc, char** argv, Config& c) {
  CLI::App app{
      "Starts N copies of a program on this node with torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, "
      "LOCAL_WORLD_SIZE, GROUP_RANK, ROLE_RANK, ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID), "
      "waits for all of them, and stops the others (SIGTERM, then SIGKILL) when one fails.\n"
      "usage: ember run --nproc-per-node N [--nnodes M --node-rank R --master-addr A --master-port P] "
      "[--log-dir D] [--] program args...",
      "ember run"};
  app.prefix_command();  // the first positional and everything after it are the program's
  app.add_option("--nproc-per-node,--nproc_per_node", c.nproc_per_node, "processes (ranks) on this node")
      ->check(int_in(1, INT32_MAX, "a positive integer"))
      ->capture_default_str();
  app.add_option("--nnodes", c.nnodes, "nodes (each runs its own `ember run`)")
      ->check(int_in(1, INT32_MAX, "a positive integer (elastic MIN:MAX ranges are not supported)"))
      ->capture_default_str();
  app.add_option("--node-rank,--node_rank", c.node_rank, "this node's rank, 0..nnodes-1")
      ->check(int_in(0, INT32_MAX, "a non-negative integer"))
      ->capture_default_str();
  app.add_option("--master-addr,--master_addr", c.master_addr, "address of the node of rank 0 (its TCPStore)")
      ->capture_default_str();
  app.add_option("--master-port,--master_port", c.master_port, "port of rank 0's TCPStore")
      ->check(int_in(1, 65535, "a port number 1..65535"))
      ->capture_default_str();
  app.add_option("--rdzv-id,--rdzv_id", c.rdzv_id, "the job's id (TORCHELASTIC_RUN_ID)")->capture_default_str();
  app.add_option("--log-dir,--log_dir", c.log_dir, "also write each rank's output to DIR/rank_<rank>.log");
  app.add_option("--grace-period", c.grace_period, "seconds between SIGTERM and SIGKILL when stopping ranks")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            char* end = nullptr;
            double v = std::strtod(s.c_str(), &end);
            return s.empty() || *end || !(v >= 0 && v <= 3600) ? fmt::format("expected seconds in 0..3600, got '{}'", s)
                                                               : "";
          },
          "SECONDS"))
      ->capture_default_str();
  auto error = [](const std::string& what) {
    std::fprintf(stderr, "ember run: error: %s (see ember run --help)\n", what.c_str());
    return 2;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return error(first_line(e.what()));
  }
  c.command = app.remaining();
  if (!c.command.empty() && c.command.front() == "--") c.command.erase(c.command.begin());
  if (c.command.empty()) return error("expected a program to run after the options");
  // prefix_command() leaves an unknown option in front of the program: reject it here.
  if (c.command.front().size() > 1 && c.command.front()[0] == '-' && app.remaining().front() != "--")
    return error("unknown option " + c.command.front());
  if (c.node_rank >= c.nnodes)
    return error(fmt::format("--node-rank: expected 0..{} (--nnodes {}), got {}", c.nnodes - 1, c.nnodes, c.node_rank));
  if (int64_t(c.nnodes) * c.nproc_per_node > INT32_MAX)
    return error(fmt::format("--nnodes {} x --nproc-per-node {}: expected a world size up to {}", c.nnodes,
                             c.nproc_per_node, INT32_MAX));
  if (c.master_addr.empty()) return error("--master-addr: expected a host name or address, got ''");
  if (c.rdzv_id.empty()) return error("--rdzv-id: expected a non-empty id");
  return std::nullopt;
}

// The environment of `r`: the launcher's, with torchrun's variables set (replacing any there).
std::vector<std::string> rank_env(const Config& c, const Rank& r, bool set_omp) {
  int world = c.nnodes * c.nproc_per_node;
  std::map<std::string, std::string> set = {
      {"LOCAL_RANK", std::to_string(r.local_rank)},
      {"RANK", std::to_string(r.rank)},
      {"GROUP_RANK", std::to_string(c.node_rank)},
      {"ROLE_RANK", std::to_string(r.rank)},
      {"ROLE_NAME", "default"},
      {"LOCAL_WORLD_SIZE", std::to_string(c.nproc_per_node)},
      {"WORLD_SIZE", std::to_string(world)},
      {"GROUP_WORLD_SIZE", std::to_string(c.nnodes)},
      {"ROLE_WORLD_SIZE", std::to_string(world)},
      {"MASTER_ADDR", c.master_addr},
      {"MASTER_PORT", std::to_string(c.master_port)},
      {"TORCHELASTIC_RESTART_COUNT", "0"},
      {"TORCHELASTIC_MAX_RESTARTS", "0"},
      {"TORCHELASTIC_RUN_ID", c.rdzv_id},
      // Rank 0 hosts the store (the launcher hosts none).
      {"TORCHELASTIC_USE_AGENT_STORE", "False"},
  };
  if (set_omp) set["OMP_NUM_THREADS"] = "1";
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (!set.count(kv.substr(0, kv.find('=')))) env.push_back(std::move(kv));
  }
  for (auto& [k, v] : set) env.push_back(k + "=" + v);
  return env;
}

// Starts `r`; returns 0 or the errno of the failure.
int spawn(const Config& c, Rank& r, std::vector<std::string> env) {
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!c.log_dir.empty()) {
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
      int e = errno;
      for (int fd : {out[0], out[1]})
        if (fd >= 0) close(fd);
      posix_spawn_file_actions_destroy(&fa);
      return e;
    }
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
  }
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  sigset_t none, dflt;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&at, &none);
  sigemptyset(&dflt);
  sigaddset(&dflt, SIGPIPE);  // the launcher ignores it; the ranks get the default
  posix_spawnattr_setsigdefault(&at, &dflt);
  std::vector<char*> args, envp;
  std::vector<std::string> argv = c.command;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int rc = posix_spawnp(&r.pid, args[0], &fa, &at, args.data(), envp.data());
  posix_spawnattr_destroy(&at);
  posix_spawn_file_actions_destroy(&fa);
  if (out[1] >= 0) close(out[1]);
  if (err[1] >= 0) close(err[1]);
  if (rc != 0) {
    for (int fd : {out[0], err[0]})
      if (fd >= 0) close(fd);
    r.pid = -1;
    return rc;
  }
  r.running = true;
  r.out = out[0];
  r.err = err[0];
  return 0;
}

std::string timestamp(std::time_t t) {
  char buf[32];
  std::tm tm{};
  localtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%d_%H:%M:%S", &tm);
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// torchrun's ChildFailedError summary.
void print_summary(const Config& c, const std::vector<Rank>& ranks, const std::vector<size_t>& failures) {
  const std::string eq(60, '='), dash(60, '-'), host = hostname();
  auto entry = [&](size_t i, const Rank& r) {
    std::string s = fmt::format(
        "[{}]:\n  time      : {}\n  host      : {}\n  rank      : {} (local_rank: {})\n  exitcode  : {} (pid: {})\n", i,
        timestamp(r.ended), host, r.rank, r.local_rank, exitcode(r.status), r.pid);
    if (WIFSIGNALED(r.status))
      s += fmt::format("  traceback : Signal {} ({}) received by PID {}\n", WTERMSIG(r.status),
                       signal_name(WTERMSIG(r.status)), r.pid);
    if (!r.log_path.empty()) s += fmt::format("  log       : {}\n", r.log_path);
    return s;
  };
  std::string s = fmt::format("{}\n{} FAILED\n{}\nFailures:\n", eq, c.command.front(), dash);
  if (failures.size() < 2) s += "  <NO_OTHER_FAILURES>\n";
  for (size_t i = 1; i < failures.size(); ++i) s += entry(i, ranks[failures[i]]);
  s += fmt::format("{}\nRoot Cause (first observed failure):\n{}{}\n", dash, entry(0, ranks[failures[0]]), eq);
  std::fputs(s.c_str(), stderr);
}

class Launcher {
 public:
  explicit Launcher(Config c) : c_(std::move(c)) {}

  int run() {
    bool set_omp = c_.nproc_per_node > 1 && !std::getenv("OMP_NUM_THREADS");
    if (set_omp)
      std::fputs(
          "ember run: \n*****************************************\nSetting OMP_NUM_THREADS environment variable for "
          "each process to be 1 in default, to avoid your system being overloaded, please further tune the variable "
          "for optimal performance in your application as needed. \n*****************************************\n",
          stderr);
    if (!c_.log_dir.empty()) {
      std::error_code ec;
      fs::create_directories(c_.log_dir, ec);
      if (ec) return fatal(fmt::format("--log-dir {}: {}", c_.log_dir, ec.message()));
    }
    // Blocked before the first spawn so that no child's exit goes unseen.
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    for (int s : kStopSignals) sigaddset(&mask, s);
    sigprocmask(SIG_BLOCK, &mask, nullptr);
    signal(SIGPIPE, SIG_IGN);
    sfd_ = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd_ < 0) return fatal(fmt::format("signalfd: {}", std::strerror(errno)));

    ranks_.resize(c_.nproc_per_node);
    for (int l = 0; l < c_.nproc_per_node; ++l) {
      Rank& r = ranks_[l];
      r.local_rank = l;
      r.rank = c_.node_rank * c_.nproc_per_node + l;
      if (!c_.log_dir.empty()) {
        r.log_path = (fs::path(c_.log_dir) / fmt::format("rank_{}.log", r.rank)).string();
        r.log = open(r.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (r.log < 0) {
          int e = errno;
          stopping_ = true;
          stop_all(SIGKILL);
          wait_all();
          return fatal(fmt::format("--log-dir: cannot write {}: {}", r.log_path, std::strerror(e)));
        }
      }
      if (int e = spawn(c_, r, rank_env(c_, r, set_omp))) {
        stopping_ = true;
        stop_all(SIGKILL);
        wait_all();
        return fatal(fmt::format("cannot start '{}' (rank {}): {}", c_.command.front(), r.rank, std::strerror(e)));
      }
    }
    wait_all();
    stop_all(SIGTERM);  // as torchrun on shutdown: what the ranks left behind
    drain();
    if (!failures_.empty()) {
      print_summary(c_, ranks_, failures_);
      return 1;
    }
    return received_ ? 128 + received_ : 0;
  }

 private:
  int fatal(const std::string& what) {
    std::fprintf(stderr, "ember run: error: %s\n", what.c_str());
    return 1;
  }

  size_t running() const {
    size_t n = 0;
    for (auto& r : ranks_) n += r.running;
    return n;
  }

  // Signals every rank's process group, the exited ranks' too (what they started may still run;
  // a group's id is not reused while it has members). ESRCH, an empty group, is no error.
  void stop_all(int sig) {
    for (auto& r : ranks_)
      if (r.pid > 0) killpg(r.pid, sig);
  }

  // Starts stopping the running ranks with `sig`, SIGKILL at the end of the grace period.
  void begin_stop(int sig) {
    stopping_ = true;
    if (running() == 0) return;
    std::string pids;
    for (auto& r : ranks_)
      if (r.running) pids += fmt::format("{}{} (pid {})", pids.empty() ? "" : ", ", r.rank, r.pid);
    std::fprintf(stderr, "ember run: sending %s to rank(s) %s; SIGKILL after %g s\n", signal_name(sig).c_str(),
                 pids.c_str(), c_.grace_period);
    stop_all(sig);
    kill_at_ = clk::now() + std::chrono::duration_cast<clk::duration>(std::chrono::duration<double>(c_.grace_period));
  }

  void kill_remaining(const char* why) {
    std::string pids;
    for (auto& r : ranks_)
      if (r.running) pids += fmt::format("{}{} (pid {})", pids.empty() ? "" : ", ", r.rank, r.pid);
    if (!pids.empty()) std::fprintf(stderr, "ember run: %s; sending SIGKILL to rank(s) %s\n", why, pids.c_str());
    stop_all(SIGKILL);
    kill_at_.reset();
  }

  void reap() {
    std::vector<size_t> newly;
    for (size_t i = 0; i < ranks_.size(); ++i) {
      Rank& r = ranks_[i];
      if (!r.running) continue;
      int st = 0;
      pid_t w = waitpid(r.pid, &st, WNOHANG);
      if (w != r.pid) continue;
      r.running = false;
      r.status = st;
      r.ended = std::time(nullptr);
      if (!stopping_ && failed(st)) newly.push_back(i);
    }
    if (newly.empty()) return;
    for (size_t i : newly) {
      const Rank& r = ranks_[i];
      std::fprintf(stderr, "ember run: rank %d (local_rank %d, pid %d) %s\n", r.rank, r.local_rank, r.pid,
                   WIFEXITED(r.status) ? fmt::format("exited with code {}", WEXITSTATUS(r.status)).c_str()
                                       : fmt::format("was killed by {}", signal_name(WTERMSIG(r.status))).c_str());
      failures_.push_back(i);
    }
    begin_stop(SIGTERM);
  }

  void on_signal(int sig) {
    if (stopping_) {
      if (!received_) received_ = sig;
      kill_remaining(fmt::format("received {} while stopping", signal_name(sig)).c_str());
      return;
    }
    received_ = sig;
    std::fprintf(stderr, "ember run: received %s\n", signal_name(sig).c_str());
    begin_stop(sig);
  }

  // Copies what a rank wrote to the console and its log; read()'s result.
  static ssize_t pump(int fd, int console, int log) {
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      write_all(console, buf, static_cast<size_t>(n));
      write_all(log, buf, static_cast<size_t>(n));
    }
    return n;
  }

  void wait_all() {
    while (running() > 0) {
      std::vector<pollfd> fds{{sfd_, POLLIN, 0}};
      std::vector<std::pair<int*, Rank*>> pipes;
      for (auto& r : ranks_)
        for (int* fd : {&r.out, &r.err})
          if (*fd >= 0) {
            fds.push_back({*fd, POLLIN, 0});
            pipes.emplace_back(fd, &r);
          }
      int timeout = -1;
      if (kill_at_)
        timeout = static_cast<int>(
            std::max<int64_t>(0, std::chrono::ceil<std::chrono::milliseconds>(*kill_at_ - clk::now()).count()));
      int n = poll(fds.data(), fds.size(), timeout);
      if (n < 0 && errno != EINTR) {
        std::fprintf(stderr, "ember run: poll: %s; killing the ranks\n", std::strerror(errno));
        stopping_ = true;
        for (auto& r : ranks_)
          if (r.running) {
            killpg(r.pid, SIGKILL);
            waitpid(r.pid, &r.status, 0);
            r.running = false;
            r.ended = std::time(nullptr);
          }
        return;
      }
      if (kill_at_ && clk::now() >= *kill_at_)
        kill_remaining(fmt::format("rank(s) still running {} s after the stop signal", c_.grace_period).c_str());
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        auto [fd, r] = pipes[i - 1];
        ssize_t got = pump(*fd, fd == &r->out ? STDOUT_FILENO : STDERR_FILENO, r->log);
        if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
          close(*fd);
          *fd = -1;
        }
      }
      if (fds[0].revents & POLLIN) {
        signalfd_siginfo si;
        bool child = false;
        while (read(sfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
          if (static_cast<int>(si.ssi_signo) == SIGCHLD)
            child = true;
          else
            on_signal(static_cast<int>(si.ssi_signo));
        }
        if (child) reap();
      }
    }
  }

  // After the last exit: what is left in the pipes (whoever else holds them is not waited for).
  void drain() {
    for (auto& r : ranks_) {
      for (int* fd : {&r.out, &r.err}) {
        if (*fd < 0) continue;
        fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) | O_NONBLOCK);
        for (;;) {
          ssize_t got = pump(*fd, fd == &r.out ? STDOUT_FILENO : STDERR_FILENO, r.log);
          if (got <= 0 && !(got < 0 && errno == EINTR)) break;
        }
        close(*fd);
        *fd = -1;
      }
      if (r.log >= 0) close(r.log);
      r.log = -1;
    }
  }

  Config c_;
  std::vector<Rank> ranks_;
  std::vector<size_t> failures_;  // indices into ranks_, in the order seen
  int sfd_ = -1;
  bool stopping_ = false;
  int received_ = 0;  // the stop signal the launcher received, if any
  std::optional<clk::time_point> kill_at_;
};

}  // namespace

int main(int argc, char** argv) {
  Config c;
  if (auto rc = parse(argc, argv, c)) return *rc;
  return Launcher(std::move(c)).run();
}

}  // namespace ember::run
