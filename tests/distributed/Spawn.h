#pragma once
// Starting the ranks of a multi-process test: N copies of a worker program over loopback, each
// with torchrun's environment, collected with their exit status and output. A rank still running
// at the deadline is killed (the test then fails on its status, never hangs).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace ember::test {

struct RankResult {
  int exit_code = -1;  // 128 + signal when killed by one
  std::string output;  // stdout and stderr together
};

// A free TCP port on 127.0.0.1, picked below the ephemeral range so that no outgoing connection
// takes it before the test's server listens.
int free_port();

struct SpawnOptions {
  std::vector<std::string> env;  // extra "K=V" for every rank
  std::chrono::seconds deadline{120};
  // Called per rank to add "K=V"s (e.g. "RANK=r"); the default sets torchrun's variables.
  bool torchrun_env = true;
};

// Runs `argv` (argv[0] is the program) world_size times; "{rank}" in an argument becomes the rank.
inline std::vector<RankResult> spawn_ranks(const std::vector<std::string>& argv, int world_size,
                                           const SpawnOptions& opts = {}, int master_port = 0) {
  if (master_port == 0) master_port = free_port();
  std::vector<pid_t> pids(world_size, -1);
  std::vector<std::string> logs(world_size);
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < world_size; ++r) {
    std::vector<std::string> args, env;
    for (auto a : argv) {
      for (size_t p; (p = a.find("{rank}")) != std::string::npos;) a.replace(p, 6, std::to_string(r));
      args.push_back(a);
    }
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    if (opts.torchrun_env) {
      env.push_back("RANK=" + std::to_string(r));
      env.push_back("LOCAL_RANK=" + std::to_string(r));
      env.push_back("WORLD_SIZE=" + std::to_string(world_size));
      env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(world_size));
      env.push_back("MASTER_ADDR=127.0.0.1");
      env.push_back("MASTER_PORT=" + std::to_string(master_port));
    }
    for (auto& e : opts.env) env.push_back(e);
    // A later "K=V" replaces an earlier one (getenv would see the first).
    for (size_t i = env.size(); i-- > 0;) {
      const std::string key = env[i].substr(0, env[i].find('=') + 1);
      for (size_t j = 0; j < i; ++j)
        if (env[j].compare(0, key.size(), key) == 0) env[j].clear();
    }
    std::erase_if(env, [](const std::string& e) { return e.empty(); });
    logs[r] = "/tmp/ember_spawn_" + std::to_string(getpid()) + "_" + std::to_string(r) + ".log";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, logs[r].c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    std::vector<char*> cargs, cenv;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    if (posix_spawn(&pids[r], cargs[0], &fa, nullptr, cargs.data(), cenv.data()) != 0) pids[r] = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  std::vector<RankResult> out(world_size);
  for (int r = 0; r < world_size; ++r) {
    if (pids[r] < 0) {
      out[r].output = "could not start " + argv[0];
      continue;
    }
    int status = 0;
    for (;;) {
      pid_t w = waitpid(pids[r], &status, WNOHANG);
      if (w == pids[r]) break;
      if (std::chrono::steady_clock::now() - t0 > opts.deadline) {
        kill(pids[r], SIGKILL);
        waitpid(pids[r], &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    out[r].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream f(logs[r]);
    std::stringstream ss;
    ss << f.rdbuf();
    out[r].output = ss.str();
    std::remove(logs[r].c_str());
  }
  return out;
}

}  // namespace ember::test
