# Writes OUTPUT, a C++ source holding every RUNBOOK_DIR/*.md as a string, so the binary serves its runbooks
# wherever it is installed or run from. Run at build time (cmake -P); reads only the source tree.
file(GLOB runbooks "${RUNBOOK_DIR}/*.md")
list(SORT runbooks)
set(entries "")
foreach(path IN LISTS runbooks)
  get_filename_component(name "${path}" NAME_WE)
  file(READ "${path}" hex HEX)
  # Every byte as \xNN, 32 bytes to a literal: no quoting of the markdown, and short lines for the compiler.
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
  string(REPEAT "\\\\x.." 32 line)
  string(REGEX REPLACE "(${line})" "\\1\"\n     \"" escaped "${escaped}")
  string(APPEND entries "    {\"${name}\",\n     \"${escaped}\"sv},\n")
endforeach()
list(LENGTH runbooks count)
file(WRITE "${OUTPUT}.tmp"
"// Generated from docs/runbooks/*.md by cmake/embed_runbooks.cmake; edit the runbooks, not this file.
#include <array>

#include \"alerting/builtin_runbooks.h\"

namespace gpuwatch::alerting {
namespace {

using namespace std::string_view_literals;

constexpr std::array<BuiltinRunbook, ${count}> kRunbooks = {{
${entries}}};

}  // namespace

std::span<const BuiltinRunbook> builtin_runbooks() {
  return kRunbooks;
}

}  // namespace gpuwatch::alerting
")
# Rewritten only when it changed, so an unchanged runbook set recompiles nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
