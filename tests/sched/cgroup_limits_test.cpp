// cgroup CPU quotas and memory limits, read from a made-up cgroup tree.
#include "sched/cgroup_limits.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace ocr::sched {
namespace {

namespace fs = std::filesystem;

class CgroupLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cgroup_limits_test_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }

  void TearDown() override { fs::remove_all(root_); }

  void Write(const fs::path& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }

  fs::path root_;
};

TEST_F(CgroupLimitsTest, CgroupV2Limit) {
  Write("cpu.max", "250000 100000\n");
  EXPECT_DOUBLE_EQ(CgroupCpuQuota(root_).value_or(-1), 2.5);
}

TEST_F(CgroupLimitsTest, CgroupV2NoLimit) {
  Write("cpu.max", "max 100000\n");
  EXPECT_FALSE(CgroupCpuQuota(root_).has_value());
}

TEST_F(CgroupLimitsTest, CgroupV1Limit) {
  Write("cpu,cpuacct/cpu.cfs_quota_us", "400000\n");
  Write("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  EXPECT_DOUBLE_EQ(CgroupCpuQuota(root_).value_or(-1), 4.0);
}

TEST_F(CgroupLimitsTest, CgroupV1Unlimited) {
  Write("cpu/cpu.cfs_quota_us", "-1\n");
  Write("cpu/cpu.cfs_period_us", "100000\n");
  EXPECT_FALSE(CgroupCpuQuota(root_).has_value());
}

TEST_F(CgroupLimitsTest, NoCgroupFiles) {
  EXPECT_FALSE(CgroupCpuQuota(root_).has_value());
}

TEST_F(CgroupLimitsTest, GarbageIsNoLimit) {
  Write("cpu.max", "lots 100000\n");
  EXPECT_FALSE(CgroupCpuQuota(root_).has_value());
}

TEST_F(CgroupLimitsTest, MemoryLimitV2) {
  Write("memory.max", "1073741824\n");
  EXPECT_EQ(CgroupMemoryLimit(root_).value_or(-1), 1073741824);
  Write("memory.max", "max\n");
  EXPECT_FALSE(CgroupMemoryLimit(root_).has_value());
}

TEST_F(CgroupLimitsTest, MemoryLimitV1) {
  Write("memory/memory.limit_in_bytes", "536870912\n");
  EXPECT_EQ(CgroupMemoryLimit(root_).value_or(-1), 536870912);
  Write("memory/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "unlimited"
  EXPECT_FALSE(CgroupMemoryLimit(root_).has_value());
}

}  // namespace
}  // namespace ocr::sched
