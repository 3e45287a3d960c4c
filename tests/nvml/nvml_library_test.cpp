#include "sources/nvml/nvml_library.h"

#include <gtest/gtest.h>

#include "sim_support.h"
#include "sources/nvml/nvml_session.h"

namespace gpuwatch {
namespace {

TEST(NvmlLibrary, ANamedLibraryThatDoesNotLoadSaysWhyNamingThePathOnce) {
  const auto opened = NvmlLibrary::open("/nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(opened.library, nullptr);
  EXPECT_NE(
      opened.error.find("cannot load the NVML library /nonexistent/libnvidia-ml.so.1: cannot open shared "
                        "object file: No such file or directory"),
      std::string::npos)
      << opened.error;
  EXPECT_NE(opened.error.find("--nvml-lib"), std::string::npos) << opened.error;
  EXPECT_EQ(opened.error.find("Install the NVIDIA driver"), std::string::npos)
      << "the user named a library: the driver is not what is missing\n"
      << opened.error;
}

TEST(NvmlLibrary, DefaultSearchNamesBothLibraryNames) {
  const auto opened = NvmlLibrary::open();
  if (opened.library) GTEST_SKIP() << "this host has an NVIDIA driver";
  EXPECT_NE(opened.error.find("libnvidia-ml.so.1"), std::string::npos) << opened.error;
  EXPECT_NE(opened.error.find("libnvidia-ml.so:"), std::string::npos) << opened.error;
}

TEST(NvmlLibrary, ALibraryThatIsNotNvmlIsRefusedNamingTheMissingSymbol) {
  const auto opened = NvmlLibrary::open("libz.so.1");
  EXPECT_EQ(opened.library, nullptr);
  EXPECT_NE(opened.error.find("nvmlInit_v2"), std::string::npos) << opened.error;
  EXPECT_NE(opened.error.find("libz.so.1"), std::string::npos) << opened.error;
}

TEST(NvmlLibrary, ResolvesEverySymbolOfTheSimulatorBeforeInit) {
  const auto opened = NvmlLibrary::open(test::sim_library_path());
  ASSERT_NE(opened.library, nullptr) << opened.error;
  const auto& lib = *opened.library;
  EXPECT_TRUE(lib.missing_symbols().empty());
  EXPECT_EQ(lib.path(), test::sim_library_path());
  EXPECT_NE(lib.fn().nvmlDeviceGetCurrentClocksEventReasons, nullptr);
  EXPECT_NE(lib.optional_symbol("gpuwatchSimGetTime"), nullptr);
  EXPECT_EQ(lib.optional_symbol("nvmlNoSuchFunction"), nullptr);
  // The simulator exports no confidential-computing query, so process entries are the 24-byte layout.
  EXPECT_EQ(lib.process_info_size(), sizeof(nvmlProcessInfo_t));
  // Resolution did not initialise NVML: the library still answers UNINITIALIZED.
  unsigned count = 0;
  EXPECT_EQ(lib.fn().nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
}

TEST(NvmlLibrary, BusIdsAreNormalisedToTheSysfsForm) {
  EXPECT_EQ(normalise_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalise_bus_id("00000001:AF:1F.0"), "0001:af:1f.0");
  EXPECT_EQ(normalise_bus_id("0000:3b:00.0"), "0000:3b:00.0");
}

TEST(NvmlLibrary, CudaVersionIsMajorDotMinor) {
  EXPECT_EQ(cuda_version_string(12040), "12.4");
  EXPECT_EQ(cuda_version_string(11080), "11.8");
  EXPECT_EQ(cuda_version_string(13000), "13.0");
}

}  // namespace
}  // namespace gpuwatch
