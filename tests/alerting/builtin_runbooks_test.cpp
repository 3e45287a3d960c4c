// The runbooks compiled into the binary: every file of docs/runbooks, byte for byte, and served by alert
// name when no folder is given or the folder given has none for the alert.
#include "alerting/builtin_runbooks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "alerting/alerting_service.h"
#include "core/file_io.h"

namespace gpuwatch::alerting {
namespace {

namespace fs = std::filesystem;
const fs::path kRunbooks = fs::path(GPUWATCH_SOURCE_DIR) / "docs/runbooks";

TEST(BuiltinRunbooks, EveryRunbookOfTheDocsIsCompiledInByteForByte) {
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(kRunbooks))
    if (entry.path().extension() == ".md") files.insert(entry.path().stem().string());
  std::set<std::string> built;
  for (const auto& r : builtin_runbooks()) built.insert(std::string(r.alertname));
  EXPECT_EQ(built, files);
  for (const auto& name : files) {
    const auto text = read_file((kRunbooks / (name + ".md")).string());
    ASSERT_TRUE(text) << name;
    const auto compiled = builtin_runbook(name);
    ASSERT_TRUE(compiled) << name;
    EXPECT_EQ(*compiled, *text) << name;
  }
  EXPECT_FALSE(builtin_runbook("NoSuchAlert"));
  EXPECT_FALSE(builtin_runbook(""));
}

HttpReply get_runbook(AlertingService& service, const std::string& name) {
  for (const auto& route : service.routes()) {
    if (route.pattern.find("/runbooks/") == std::string::npos) continue;
    HttpRequest req;
    req.method = "GET";
    req.path = "/runbooks/" + name;
    req.captures = {name};
    return route.handle(req);
  }
  return HttpReply{404, "", "", {}};
}

TEST(BuiltinRunbooks, ServedWithoutAFolderAndForAlertsTheGivenFolderLacks) {
  AlertingOptions without;
  AlertingService builtin(without, [] { return std::int64_t{0}; });
  const auto lost = get_runbook(builtin, "GpuLost");
  EXPECT_EQ(lost.status, 200);
  EXPECT_EQ(lost.body, *read_file((kRunbooks / "GpuLost.md").string()));

  AlertingOptions with;
  with.runbook_dir = std::string(GPUWATCH_SOURCE_DIR) + "/tests/alerting/runbooks";
  AlertingService own(with, [] { return std::int64_t{0}; });
  EXPECT_NE(get_runbook(own, "GpuTestRunbook").body.find("# GpuTestRunbook"), std::string::npos);
  EXPECT_EQ(get_runbook(own, "GpuLost").body, lost.body) << "the folder has no GpuLost.md";
  EXPECT_EQ(get_runbook(own, "NoSuchAlert").status, 404);
}

}  // namespace
}  // namespace gpuwatch::alerting
