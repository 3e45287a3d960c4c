// `gpuwatch status --query-gpu FIELDS --format csv[,noheader][,nounits]` and `--query-compute-apps`: the CSV
// nvidia-smi scripts read, from one table of fields.
#include "cli/status_csv.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "snapshot_fixture.h"
#include "text_lines.h"

namespace gpuwatch {
namespace {

using test::lines_of;

std::string csv(StatusQueryKind kind, std::string_view fields, std::string_view format = "csv") {
  StatusQuery query;
  const std::string problem = parse_status_query(kind, fields, format, query);
  EXPECT_EQ(problem, "");
  return render_status_query(testing::h200_node(), query);
}

std::string gpu_csv(std::string_view fields, std::string_view format = "csv") {
  return csv(StatusQueryKind::kGpu, fields, format);
}

std::string problem_of(StatusQueryKind kind, std::string_view fields, std::string_view format = "csv") {
  StatusQuery query;
  return parse_status_query(kind, fields, format, query);
}

TEST(StatusCsv, LaysOutHeaderUnitsAndValuesAsNvidiaSmiDoes) {
  const auto lines = lines_of(
      gpu_csv("index, name,temperature.gpu,utilization.gpu,memory.used,memory.total,power.draw,clocks.sm"));
  ASSERT_EQ(lines.size(), 5u) << "a header and a row per GPU";
  EXPECT_EQ(lines[0],
            "index, name, temperature.gpu, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
            "power.draw [W], clocks.sm [MHz]");
  EXPECT_EQ(lines[1], "0, NVIDIA H200, 54, 87 %, 92160 MiB, 143771 MiB, 512.25 W, 1980 MHz");
  EXPECT_EQ(lines[2], "1, NVIDIA H200, 55, 77 %, 92161 MiB, 143771 MiB, 513.25 W, 1980 MHz");

  const auto bare = lines_of(gpu_csv("index,utilization.gpu,memory.used,power.draw", "csv,noheader,nounits"));
  ASSERT_EQ(bare.size(), 4u);
  EXPECT_EQ(bare[0], "0, 87, 92160, 512.25");
  EXPECT_EQ(lines_of(gpu_csv("memory.used", "nounits,csv"))[0], "memory.used [MiB]")
      << "nounits keeps the units in the header, as nvidia-smi does";
}

TEST(StatusCsv, ALostGpuGetsARowWithItsReadingsNotAvailable) {
  const auto lines =
      lines_of(gpu_csv("index,uuid,state,health,temperature.gpu,memory.used,processes,health.reasons"));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(
      lines[4],
      "3, GPU-5f8b2c1e-0000-4a6b-9c3d-000000000003, lost, critical, [N/A], [N/A], [N/A], GPU is lost (fell "
      "off the bus): reboot the node")
      << "its identity is known, its last readings are not shown as current";
  EXPECT_NE(lines[3].find(", stale, "), std::string::npos) << lines[3];
  EXPECT_NE(lines[1].find(", ok, healthy, 54, 92160 MiB, 2, none"), std::string::npos) << lines[1];
}

TEST(StatusCsv, AValueTheGpuDoesNotReportIsNotAvailable) {
  // The fixture's H200s have no fan (an SXM module).
  EXPECT_EQ(lines_of(gpu_csv("fan.speed,pstate", "csv,noheader"))[0], "[N/A], P0");
}

TEST(StatusCsv, NvidiaSmisSpellingsOfIdentityAndClockReasons) {
  const auto lines = lines_of(gpu_csv(
      "pci.bus_id,clocks_throttle_reasons.active,clocks_event_reasons.active,throttle,mig.mode.current,count,"
      "driver_version,clocks.gr,clocks.max.mem"));
  EXPECT_EQ(
      lines[0],
      "pci.bus_id, clocks_throttle_reasons.active, clocks_event_reasons.active, throttle, mig.mode.current, "
      "count, driver_version, clocks.gr [MHz], clocks.max.mem [MHz]")
      << "a field is headed by the spelling asked for";
  EXPECT_EQ(lines[1],
            "00000000:1B:00.0, 0x0000000000000004, 0x0000000000000004, sw_power_cap, Disabled, 4, 550.54.15, "
            "1980 MHz, 3200 MHz");
}

TEST(StatusCsv, AnUnknownFieldIsAUsageErrorNamingItAndTheCloseOnes) {
  EXPECT_EQ(problem_of(StatusQueryKind::kGpu, "index,temprature.gpu"),
            "--query-gpu: unknown field 'temprature.gpu' (close: temperature.gpu); gpuwatch status "
            "--help-query-gpu lists every field");
  const std::string group = problem_of(StatusQueryKind::kGpu, "memory.usage");
  EXPECT_NE(group.find("(close: memory.used, memory.free"), std::string::npos) << group;
  const std::string far = problem_of(StatusQueryKind::kGpu, "xyzzy");
  EXPECT_EQ(far, "--query-gpu: unknown field 'xyzzy'; gpuwatch status --help-query-gpu lists every field");
  EXPECT_NE(problem_of(StatusQueryKind::kComputeApps, "pid,usr").find("unknown field 'usr' (close: user, "),
            std::string::npos);
  EXPECT_NE(problem_of(StatusQueryKind::kGpu, "index,,name").find("an empty field name"), std::string::npos);
  EXPECT_NE(problem_of(StatusQueryKind::kGpu, " ").find("needs at least one field"), std::string::npos);
}

TEST(StatusCsv, TheFormatIsCsvWithNoheaderAndNounits) {
  EXPECT_EQ(problem_of(StatusQueryKind::kGpu, "index", "csv,noheader,nounits"), "");
  EXPECT_NE(problem_of(StatusQueryKind::kGpu, "index", "xml").find("--format: unknown 'xml'"),
            std::string::npos);
  EXPECT_NE(problem_of(StatusQueryKind::kGpu, "index", "noheader").find("--format: expected csv"),
            std::string::npos);
}

TEST(StatusCsv, ComputeAppsCarryUserAndCommandAndQuoteWhatWouldSplitARow) {
  const auto lines = lines_of(
      csv(StatusQueryKind::kComputeApps, "pid,process_name,used_memory,gpu_uuid,user,uid,command,type"));
  ASSERT_EQ(lines.size(), 2u) << "one compute process; the graphics one is not a compute app";
  EXPECT_EQ(lines[0], "pid, process_name, used_memory [MiB], gpu_uuid, user, uid, command, type");
  EXPECT_EQ(
      lines[1],
      "4242, python3, 81920 MiB, GPU-5f8b2c1e-0000-4a6b-9c3d-000000000000, alice, 1000, python3 train.py "
      "--config configs/llama-70b.yaml --epochs 3, compute");

  Snapshot snap = testing::h200_node();
  snap.devices[0].processes[0].command = "python3 -c print(\"a,b\")";
  snap.devices[0].processes[0].user.clear();
  snap.devices[0].processes[0].uid.reset();
  StatusQuery query;
  ASSERT_EQ(parse_status_query(StatusQueryKind::kComputeApps, "pid,user,uid,command", "csv,noheader", query),
            "");
  EXPECT_EQ(render_status_query(snap, query), "4242, [N/A], [N/A], \"python3 -c print(\"\"a,b\"\")\"\n");
}

TEST(StatusCsv, TheHelpListsEveryFieldOfTheTable) {
  for (const auto kind : {StatusQueryKind::kGpu, StatusQueryKind::kComputeApps}) {
    const std::string help = status_query_help(kind);
    for (const auto name : status_query_field_names(kind)) {
      const bool listed = help.find("  " + std::string(name)) != std::string::npos ||
                          help.find(" or " + std::string(name)) != std::string::npos;
      EXPECT_TRUE(listed) << name;
      StatusQuery query;
      EXPECT_EQ(parse_status_query(kind, name, "csv", query), "") << "every listed name is taken: " << name;
    }
  }
  EXPECT_NE(status_query_help(StatusQueryKind::kGpu).find("  memory.used [MiB]\n"), std::string::npos);
  EXPECT_NE(status_query_help(StatusQueryKind::kGpu).find("  health  (gpuwatch)\n"), std::string::npos);
  EXPECT_TRUE(is_field_help(" help"));
  EXPECT_FALSE(is_field_help("index"));
}

// docs/status.md shows both field lists as `--help-query-gpu` and `--help-query-compute-apps` print them.
TEST(StatusCsv, TheDocsListTheFieldsOfTheTable) {
  std::ifstream in(std::string(GPUWATCH_SOURCE_DIR) + "/docs/status.md");
  ASSERT_TRUE(in) << "docs/status.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const auto& [kind, flag] : {std::pair{StatusQueryKind::kGpu, "--help-query-gpu"},
                                   std::pair{StatusQueryKind::kComputeApps, "--help-query-compute-apps"}}) {
    const std::string begin = std::string("<!-- BEGIN GENERATED: gpuwatch status ") + flag + " -->\n```\n";
    const auto b = doc.find(begin);
    ASSERT_NE(b, std::string::npos) << begin;
    const auto e = doc.find("```\n<!-- END GENERATED -->", b);
    ASSERT_NE(e, std::string::npos);
    EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), status_query_help(kind))
        << "regenerate with: build/gpuwatch status " << flag;
  }
}

}  // namespace
}  // namespace gpuwatch
