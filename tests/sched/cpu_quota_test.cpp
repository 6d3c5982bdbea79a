// cgroup CPU quotas, read from a made-up cgroup tree.
#include "sched/cpu_quota.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace ocr::sched {
namespace {

namespace fs = std::filesystem;

class CpuQuotaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cpu_quota_test_" + std::to_string(getpid()));
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

TEST_F(CpuQuotaTest, CgroupV2Limit) {
  Write("cpu.max", "250000 100000\n");
  EXPECT_DOUBLE_EQ(CgroupCpuQuota(root_).value_or(-1), 2.5);
}

TEST_F(CpuQuotaTest, CgroupV2NoLimit) {
  Write("cpu.max", "max 100000\n");
  EXPECT_FALSE(CgroupCpuQuota(root_).has_value());
}

TEST_F(CpuQuotaTest, CgroupV1Limit) {
  Write("cpu,cpuacct/cpu.cfs_quota_us", "400000\n");
  Write("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  EXPECT_DOUBLE_EQ(CgroupCpuQuota(root_).value_or(-1), 4.0);
}

TEST_F(CpuQuotaTest, CgroupV1Unlimited) {
  Write("cpu/cpu.cfs_quota_us", "-1\n");
  Write("cpu/cpu.cfs_period_us", "100000\n");
  EXPECT_FALSE(CgroupCpuQuota(root_).has_value());
}

TEST_F(CpuQuotaTest, NoCgroupFiles) {
  EXPECT_FALSE(CgroupCpuQuota(root_).has_value());
}

TEST_F(CpuQuotaTest, GarbageIsNoLimit) {
  Write("cpu.max", "lots 100000\n");
  EXPECT_FALSE(CgroupCpuQuota(root_).has_value());
}

}  // namespace
}  // namespace ocr::sched
