#include "config/options_reference.h"

#include "config/agent_options.h"

namespace gpuwatch {

std::string options_reference_markdown() {
  AgentOptions defaults;
  std::string out =
      "| config key | flag | value | default | reload on SIGHUP | commands | what it does |\n"
      "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& spec : option_table()) {
    std::string shown = spec.show(defaults);
    out += "| `" + std::string(spec.key) + "` | `--" + flag_name(spec.key) + "` | " +
           std::string(spec.value_name) + " | " + (shown.empty() ? "" : "`" + shown + "`") + " | " +
           (spec.reloadable ? "yes" : "no (restart)") + " | " + option_command_names(spec.commands) + " | " +
           std::string(spec.help) + " |\n";
  }
  return out;
}

}  // namespace gpuwatch
