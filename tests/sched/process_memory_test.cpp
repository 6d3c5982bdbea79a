// The resident-memory reader, over made-up /proc status files and this process's own.
#include "sched/process_memory.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace ocr::sched {
namespace {

namespace fs = std::filesystem;

class ProcessMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = fs::temp_directory_path() / ("process_memory_test_" + std::to_string(getpid()));
  }

  void TearDown() override { fs::remove(file_); }

  void Write(const std::string& text) { std::ofstream(file_) << text; }

  fs::path file_;
};

TEST_F(ProcessMemoryTest, ReadsResidentAndPeakInBytes) {
  Write(
      "Name:\tonnxocr\nVmPeak:\t  900000 kB\nVmHWM:\t  250000 kB\nVmRSS:\t  123456 kB\n"
      "RssAnon:\t  100000 kB\n");
  const ProcessMemory memory = ReadProcessMemory(file_);
  EXPECT_EQ(memory.resident_bytes, 123456 * 1024LL);
  EXPECT_EQ(memory.peak_resident_bytes, 250000 * 1024LL);
}

TEST_F(ProcessMemoryTest, MissingOrMalformedFieldsReadAsZero) {
  Write("VmRSS:\t  lots kB\nVmSize:\t  1000 kB\n");
  const ProcessMemory memory = ReadProcessMemory(file_);
  EXPECT_EQ(memory.resident_bytes, 0);
  EXPECT_EQ(memory.peak_resident_bytes, 0);
}

TEST_F(ProcessMemoryTest, MissingFileReadsAsZero) {
  const ProcessMemory memory = ReadProcessMemory(file_ / "absent");
  EXPECT_EQ(memory.resident_bytes, 0);
  EXPECT_EQ(memory.peak_resident_bytes, 0);
}

TEST(ProcessMemory, ThisProcessIsResident) {
  const ProcessMemory memory = ReadProcessMemory();
  EXPECT_GT(memory.resident_bytes, 0);
  EXPECT_GE(memory.peak_resident_bytes, memory.resident_bytes);
}

}  // namespace
}  // namespace ocr::sched
