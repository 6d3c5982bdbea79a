// Worker placement on synthetic hwloc machines: multi-socket layouts tested on any machine.
#include "sched/topology.h"

#include <numeric>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ocr::sched {
namespace {

using ::testing::ElementsAre;

std::vector<int> Range(int first, int last) {
  std::vector<int> v(static_cast<size_t>(last - first + 1));
  std::iota(v.begin(), v.end(), first);
  return v;
}

Topology Synthetic(const std::string& description) {
  auto t = SyntheticTopology(description);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : Topology{};
}

TEST(TopologyTest, SyntheticTwoSocketsWithHyperthreads) {
  const Topology t = Synthetic("pack:2 [numa] core:8 pu:2");
  EXPECT_EQ(t.packages(), 2);
  EXPECT_EQ(t.numa_nodes(), 2);
  ASSERT_EQ(t.cores.size(), 16u);
  EXPECT_EQ(t.hardware_threads(), 32);
  EXPECT_THAT(t.cores[0].cpus, ElementsAre(0, 1));
  EXPECT_EQ(t.cores[8].package, 1);
  EXPECT_EQ(t.cores[8].numa_node, 1);
  EXPECT_EQ(DescribeTopology(t), "2 packages, 2 NUMA nodes, 16 cores, 32 hardware threads");
}

TEST(TopologyTest, BadSyntheticDescriptionIsRefused) {
  auto t = SyntheticTopology("not a topology");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
}

TEST(TopologyTest, OneGroupPerNodeOneWorkerPerPhysicalCore) {
  const Topology t = Synthetic("pack:2 [numa] core:8 pu:2");
  const auto groups = PlanWorkerGroups(t, Range(0, 31), {});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].numa_node, 0);
  EXPECT_EQ(groups[1].numa_node, 1);
  // The first hyperthread of each core; siblings stay free.
  EXPECT_THAT(groups[0].cpus, ElementsAre(0, 2, 4, 6, 8, 10, 12, 14));
  EXPECT_THAT(groups[1].cpus, ElementsAre(16, 18, 20, 22, 24, 26, 28, 30));
}

TEST(TopologyTest, WithoutHyperthreadsEveryCpuGetsAWorker) {
  const Topology t = Synthetic("pack:2 [numa] core:8 pu:1");
  const auto groups = PlanWorkerGroups(t, Range(0, 15), {});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].cpus, Range(0, 7));
  EXPECT_EQ(groups[1].cpus, Range(8, 15));
}

TEST(TopologyTest, NumaOffGivesOneGroupOverAllNodes) {
  const Topology t = Synthetic("pack:2 [numa] core:4 pu:1");
  PlacementOptions options;
  options.numa = false;
  const auto groups = PlanWorkerGroups(t, Range(0, 7), options);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].numa_node, -1);
  EXPECT_EQ(groups[0].cpus, Range(0, 7));
}

TEST(TopologyTest, ThreadCapFillsOneNodeBeforeTheNext) {
  const Topology t = Synthetic("pack:2 [numa] core:8 pu:1");
  PlacementOptions options;
  options.max_threads = 10;
  const auto groups = PlanWorkerGroups(t, Range(0, 15), options);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].cpus, Range(0, 7));
  EXPECT_THAT(groups[1].cpus, ElementsAre(8, 9));

  options.max_threads = 3;
  const auto small = PlanWorkerGroups(t, Range(0, 15), options);
  ASSERT_EQ(small.size(), 1u);
  EXPECT_THAT(small[0].cpus, ElementsAre(0, 1, 2));
}

TEST(TopologyTest, AffinityMaskRestrictsCoresAndPicksAnAllowedSibling) {
  const Topology t = Synthetic("pack:2 [numa] core:4 pu:2");
  // Allowed: the second hyperthread of cores 0 and 1, and all of core 5 (node 1).
  const auto groups = PlanWorkerGroups(t, {1, 3, 10, 11}, {});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_THAT(groups[0].cpus, ElementsAre(1, 3));
  EXPECT_EQ(groups[1].numa_node, 1);
  EXPECT_THAT(groups[1].cpus, ElementsAre(10));
}

TEST(TopologyTest, CpuQuotaCapsWorkersRoundingDown) {
  const Topology t = Synthetic("pack:1 [numa] core:16 pu:2");
  PlacementOptions options;
  options.cpu_quota = 2.5;
  const auto groups = PlanWorkerGroups(t, Range(0, 31), options);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_THAT(groups[0].cpus, ElementsAre(0, 2));

  options.cpu_quota = 0.5;  // less than one core still gets one worker
  EXPECT_EQ(PlanWorkerGroups(t, Range(0, 31), options)[0].cpus.size(), 1u);
}

TEST(TopologyTest, MaskOutsideTheTopologyGivesOneUnpinnedWorker) {
  const Topology t = Synthetic("pack:1 [numa] core:2 pu:1");
  const auto groups = PlanWorkerGroups(t, {64}, {});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_THAT(groups[0].cpus, ElementsAre(-1));
}

TEST(TopologyTest, ThisMachineHasAtLeastOneUsableCore) {
  auto t = DiscoverTopology();
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_FALSE(t->cores.empty());
  const auto groups = PlanWorkerGroups(*t, AllowedCpus(), {});
  ASSERT_FALSE(groups.empty());
  EXPECT_GE(groups[0].cpus.size(), 1u);
  EXPECT_TRUE(PinCurrentThread(groups[0].cpus[0]).ok());
}

}  // namespace
}  // namespace ocr::sched
