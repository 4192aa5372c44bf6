// DeviceMesh and DTensor across processes: each test starts the ranks of ember_dtensor_worker
// with one case (2 ranks; 4 for the 2-D mesh) and expects every rank to pass its checks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "Spawn.h"

namespace {

void run_case(const std::string& name, int world_size) {
  ember::test::SpawnOptions opts;
  opts.deadline = std::chrono::seconds(90);
  auto results = ember::test::spawn_ranks({EMBER_DTENSOR_WORKER, name}, world_size, opts);
  for (size_t r = 0; r < results.size(); ++r)
    EXPECT_EQ(results[r].exit_code, 0) << "rank " << r << " of case " << name << ":\n" << results[r].output;
}

}  // namespace

TEST(DTensor, RedistributeEveryPairWithGradients) { run_case("redistribute", 2); }
TEST(DTensor, DistributeTensorFromCoordinateZeroAndFromLocal) { run_case("distribute", 2); }
TEST(DTensor, OpRulesPlacementsValuesAndGradients) { run_case("ops", 2); }
TEST(DTensor, TensorParallelMlpMatchesSingleProcess) { run_case("mlp", 2); }
TEST(DTensor, TwoDimensionalMesh) { run_case("mesh2d", 4); }
TEST(DTensor, DistributeModule) { run_case("module", 2); }
