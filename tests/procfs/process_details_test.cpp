// Who runs a GPU process and how: the uid from /proc/<pid>/status, the command line from cmdline, and the
// user name from the host's passwd file, parsed by gpuwatch itself and cached.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim_support.h"
#include "sources/procfs/process_details.h"
#include "sources/procfs/user_names.h"

namespace gpuwatch::procfs {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

// A literal's bytes, NULs included.
template <std::size_t N>
std::string bytes(const char (&text)[N]) {
  return std::string(text, N - 1);
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

TEST(Passwd, NamesEachUidByItsFirstEntry) {
  const auto names = parse_passwd(
      "root:x:0:0:root:/root:/bin/bash\n"
      "# a comment\n"
      "\n"
      "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n"
      "+nisuser::::::\n"
      "broken line without colons\n"
      "nouid:x::100::/:/bin/false\n"
      "toolarge:x:99999999999:1::/:/bin/false\n"
      "shadow-alice:x:1000:1000::/home/alice:/bin/bash\n"
      "bob:x:1001:1001::/home/bob:/bin/sh");  // no final line feed
  EXPECT_EQ(names, (std::map<unsigned, std::string>{{0, "root"}, {1000, "alice"}, {1001, "bob"}}));
}

TEST(Passwd, IsTheHostsAsInitSeesItThenTheOneBesideTheProcRoot) {
  EXPECT_EQ(passwd_paths("/proc"), (std::vector<std::string>{"/proc/1/root/etc/passwd", "/etc/passwd"}));
  EXPECT_EQ(passwd_paths("/host/proc/"),
            (std::vector<std::string>{"/host/proc/1/root/etc/passwd", "/host/etc/passwd"}));
}

TEST(UserNames, ANameFromTheFirstReadableFileElseTheUid) {
  test::TempDir dir;
  write(dir.path() + "/etc/passwd",
        "root:x:0:0::/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n");
  // The first path is absent (as /proc/1/root is unreadable to a user other than root): the second is read.
  UserNames users({dir.path() + "/proc/1/root/etc/passwd", dir.path() + "/etc/passwd"});
  EXPECT_EQ(users.name_of(1000), "alice");
  EXPECT_EQ(users.name_of(0), "root");
  EXPECT_EQ(users.name_of(4242), "4242") << "a uid passwd does not name shows as the number";
  UserNames none({dir.path() + "/nowhere/passwd"});
  EXPECT_EQ(none.name_of(1000), "1000") << "no passwd file at all";
}

TEST(UserNames, ReadsTheFileAgainWhenItChangedButNotBeforeTheRecheck) {
  test::TempDir dir;
  const std::string path = dir.path() + "/passwd";
  write(path, "alice:x:1000:1000::/home/alice:/bin/bash\n");
  UserNames every_time({path}, seconds(0));
  UserNames hourly({path}, hours(1));
  EXPECT_EQ(every_time.name_of(1000), "alice");
  EXPECT_EQ(hourly.name_of(1000), "alice");
  // A new user and a renamed one, written as useradd writes it: a new file moved over the old one.
  write(path + ".new",
        "alicia:x:1000:1000::/home/alice:/bin/bash\ncarol:x:1002:1002::/home/carol:/bin/bash\n");
  std::filesystem::rename(path + ".new", path);
  EXPECT_EQ(every_time.name_of(1000), "alicia");
  EXPECT_EQ(every_time.name_of(1002), "carol");
  EXPECT_EQ(hourly.name_of(1000), "alice") << "cached until the recheck is due";
  EXPECT_EQ(hourly.name_of(1002), "1002");
  std::filesystem::remove(path);
  EXPECT_EQ(every_time.name_of(1000), "1000") << "a file that went away names nobody";
}

TEST(ProcessDetails, UidFromTheStatusFilesRealId) {
  EXPECT_EQ(uid_from_status("Name:\tpython3\nPid:\t7\nUid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\n"),
            1000u);
  EXPECT_EQ(uid_from_status("Name:\tpython3\nPid:\t7\n"), std::nullopt);
  EXPECT_EQ(uid_from_status("Uid:\tnobody\n"), std::nullopt);
}

TEST(ProcessDetails, CommandLineJoinedBySpacesWithControlCharactersMasked) {
  EXPECT_EQ(command_from_cmdline(bytes("python3\0train.py\0--lr\0"
                                       "3e-4\0")),
            "python3 train.py --lr 3e-4");
  EXPECT_EQ(command_from_cmdline(bytes("sh\0-c\0echo a\nb\x1b[31m\0")), "sh -c echo a?b?[31m");
  EXPECT_EQ(command_from_cmdline(""), "");
  const std::string huge(100'000, 'x');
  const std::string cut = command_from_cmdline(huge);
  EXPECT_LE(cut.size(), 4096u);
  EXPECT_TRUE(cut.ends_with("...")) << "a cut command line says so";
}

TEST(ProcessDetails, ReadFromAProcTreeWithTheUserNamedByItsPasswd) {
  test::TempDir dir;
  const std::string proc = dir.path() + "/proc";
  write(proc + "/1/root/etc/passwd",
        "root:x:0:0::/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n");
  write(proc + "/4242/status", "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\n");
  write(proc + "/4242/cmdline", bytes("python3\0train.py\0"));
  write(proc + "/4343/status", "Name:\tworker\nUid:\t2001\t2001\t2001\t2001\n");
  UserNames users(passwd_paths(proc));
  const ProcessDetails alice = read_process_details(proc, 4242, users);
  EXPECT_EQ(alice.uid, 1000u);
  EXPECT_EQ(alice.user, "alice");
  EXPECT_EQ(alice.command, "python3 train.py");
  const ProcessDetails unnamed = read_process_details(proc, 4343, users);
  EXPECT_EQ(unnamed.uid, 2001u);
  EXPECT_EQ(unnamed.user, "2001") << "missing from passwd";
  EXPECT_EQ(unnamed.command, "") << "no cmdline file";
  const ProcessDetails gone = read_process_details(proc, 9999, users);
  EXPECT_EQ(gone.uid, std::nullopt);
  EXPECT_EQ(gone.user, "");
}

}  // namespace
}  // namespace gpuwatch::procfs
