// The MPI backend under mpirun: each test runs mpi_worker's scenario on 2 or 3 ranks (the
// worker checks its results against single-process references) and checks how the job ended.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "Spawn.h"

namespace {

struct MpiJob {
  int exit_code = -1;
  std::string output;
  double seconds = 0;
};

// mpirun -np `np` mpi_worker `scenario`, over loopback TCP, ended by mpirun after `limit_s`.
MpiJob run_mpi(int np, const std::string& scenario, int limit_s = 60, const std::string& arg = "") {
  std::vector<std::string> argv{EMBER_MPIEXEC,      "--allow-run-as-root",   "--oversubscribe",
                                "--timeout",        std::to_string(limit_s), "-np",
                                std::to_string(np), EMBER_MPI_WORKER,        scenario};
  if (!arg.empty()) argv.push_back(arg);
  ember::test::SpawnOptions o;
  o.torchrun_env = false;
  o.deadline = std::chrono::seconds(limit_s + 30);
  o.env = {"OMPI_MCA_btl=self,tcp", "OMPI_MCA_btl_tcp_if_include=lo", "OMPI_MCA_oob_tcp_if_include=lo",
           "OMPI_MCA_rmaps_base_oversubscribe=1"};
  // Under ASan: Open MPI's MCA components, unloaded at MPI_Finalize, keep allocations LeakSanitizer
  // can no longer attribute (frames in "<unknown module>"); leaks are checked in every other suite.
  if (const char* asan = std::getenv("ASAN_OPTIONS"))
    o.env.push_back(std::string("ASAN_OPTIONS=") + asan + ":detect_leaks=0");
  auto t0 = std::chrono::steady_clock::now();
  auto res = ember::test::spawn_ranks(argv, 1, o);
  MpiJob job;
  job.exit_code = res[0].exit_code;
  job.output = res[0].output;
  job.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return job;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

void expect_pass(const MpiJob& job, const std::string& scenario, int np) {
  EXPECT_EQ(job.exit_code, 0) << job.output;
  EXPECT_FALSE(has(job.output, "FAIL")) << job.output;
  for (int r = 0; r < np; ++r)
    EXPECT_TRUE(has(job.output, "PASS " + scenario + " rank " + std::to_string(r))) << job.output;
}

TEST(MPI, CollectivesTwoRanks) { expect_pass(run_mpi(2, "collectives"), "collectives", 2); }
TEST(MPI, CollectivesThreeRanks) { expect_pass(run_mpi(3, "collectives"), "collectives", 3); }
TEST(MPI, PointToPointTwoRanks) { expect_pass(run_mpi(2, "p2p"), "p2p", 2); }
TEST(MPI, PointToPointThreeRanks) { expect_pass(run_mpi(3, "p2p"), "p2p", 3); }
TEST(MPI, Subgroups) { expect_pass(run_mpi(3, "groups"), "groups", 3); }
TEST(MPI, AsyncHandles) { expect_pass(run_mpi(2, "async"), "async", 2); }
TEST(MPI, ErrorMessages) { expect_pass(run_mpi(2, "errors"), "errors", 2); }

// A rank that sleeps past rank 0's 1 s timeout: rank 0's wait throws DistBackendError naming
// the operation, its sequence number and the rank; its next operation fails at once; at exit it
// calls MPI_Abort, which ends the job (non-zero) without waiting for the sleeper.
TEST(MPI, TimeoutNamesOperationAndAborts) {
  auto job = run_mpi(2, "timeout", 30);
  EXPECT_EQ(job.exit_code, 1) << job.output;  // MPI_Abort's error code
  EXPECT_TRUE(has(job.output, "PASS timeout rank 0")) << job.output;
  EXPECT_FALSE(has(job.output, "FAIL")) << job.output;
  EXPECT_TRUE(has(job.output, "[all_reduce #2 on group 'default_pg'] rank 0 of 2 (mpi)")) << job.output;
  EXPECT_LT(job.seconds, 5.5) << job.output;  // before the sleeper (6 s) wakes up
}

// The same with a store (init_method tcp://): the error adds the health monitor's diagnosis,
// which names the rank that did not arrive.
TEST(MPI, TimeoutWithStoreNamesTheMissingRank) {
  auto job = run_mpi(2, "timeout_store", 30, std::to_string(ember::test::free_port()));
  EXPECT_EQ(job.exit_code, 1) << job.output;
  EXPECT_TRUE(has(job.output, "PASS timeout_store rank 0")) << job.output;
  EXPECT_FALSE(has(job.output, "FAIL")) << job.output;
  EXPECT_LT(job.seconds, 5.9) << job.output;
}

// A rank killed by SIGKILL in the middle of a loop of all_reduces: the job ends non-zero within
// seconds (mpirun tears it down), never hangs.
TEST(MPI, KilledRankEndsTheJob) {
  auto job = run_mpi(2, "kill", 60);
  EXPECT_NE(job.exit_code, 0) << job.output;
  EXPECT_TRUE(has(job.output, "rank 1 kills itself")) << job.output;
  EXPECT_FALSE(has(job.output, "finished the loop")) << job.output;
  EXPECT_LT(job.seconds, 15) << job.output;
  std::printf("mpirun's output after the kill (%.1f s):\n%s\n", job.seconds, job.output.c_str());
}

}  // namespace
