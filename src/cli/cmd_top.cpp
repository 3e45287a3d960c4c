// `gpuwatch top [--url URL] [--interval D]`: a live terminal view of the GPUs, as nvtop and nvitop draw one:
// a block per GPU with bars and health marks, history plots, the alerts that hold, a process table sorted and
// filtered by key, and a help line. It reads a running agent (--url) or the GPUs itself (the agent's
// collector, on a thread of its own): either way the drawing thread never waits for a device or the network.
#include <curses.h>  // the key codes (ERR, KEY_RESIZE) only: the library is the terminal module's

#include <algorithm>
#include <iostream>
#include <memory>

#include "agent/collector_setup.h"
#include "cli/agent_flags.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "cli/top/agent_source.h"
#include "cli/top/history.h"
#include "cli/top/keys.h"
#include "cli/top/local_source.h"
#include "cli/top/renderer.h"
#include "cli/top/terminal.h"
#include "core/wall_clock.h"
#include "net/url.h"

namespace gpuwatch {
namespace {

struct TopArgs {
  std::string url;  // "" reads the GPUs here
  std::unique_ptr<AgentFlags> flags;
};

// Draws each new reading, when a reading is late (ages move on) and after every key, until q, SIGINT, SIGTERM
// or SIGHUP.
void run_screen(top::FrameSource& source, std::chrono::milliseconds interval, const SignalWaiter& signals,
                const top::Wakeup& wakeup) {
  const std::shared_ptr<top::Terminal> terminal = top::open_terminal();
  top::ViewState view;
  top::History history;
  auto next_draw = std::chrono::steady_clock::now();
  bool dirty = true;
  SnapshotPtr drawn;  // the snapshot on the screen: a new one is drawn as soon as it comes
  while (!view.quit && signals.poll() == 0) {
    const auto now = std::chrono::steady_clock::now();
    const top::FramePtr frame = source.latest();
    if (frame && frame->snapshot != drawn) dirty = true;
    if (dirty || now >= next_draw) {
      if (frame) {
        history.add(*frame);
        drawn = frame->snapshot;
      }
      terminal->paint(top::render(frame.get(), history, view, {terminal->size(), interval, wall_unix_ms()}));
      // The next draw: a new reading, a key, or half an interval past when the next reading was due (so that
      // ages move on while readings are late). A timer at one interval would fire just before most readings
      // and draw every one twice.
      next_draw = now + interval + interval / 2;
      dirty = false;
    }
    // Asleep until a new frame, a key, a signal, a resize or the next draw is due.
    wakeup.wait(std::chrono::duration_cast<std::chrono::milliseconds>(next_draw - now) +
                std::chrono::milliseconds(1));
    // Every key that came (ncurses may hold more than one), without waiting.
    for (int key = terminal->read_key(std::chrono::milliseconds(0)); key != ERR;
         key = terminal->read_key(std::chrono::milliseconds(0))) {
      if (key != KEY_RESIZE) top::apply_key(view, key);
      dirty = true;
    }
  }
}

int run_top(const TopArgs& args) {
  // Before any thread starts: the signals then reach only the drawing loop, which restores the terminal.
  const SignalWaiter signals;
  const auto wakeup = std::make_shared<const top::Wakeup>();
  AgentOptions options;
  if (!args.flags->resolve(options)) return kExitUsage;
  std::unique_ptr<top::FrameSource> source;
  if (!args.url.empty()) {
    std::string error;
    auto agent = net::parse_url(args.url, &error);
    if (!agent) {
      std::cerr << "gpuwatch top: --url: " << error << "\n";
      return kExitUsage;
    }
    source = std::make_unique<top::AgentSource>(std::move(*agent), options.interval, wakeup);
  } else {
    if (auto problem = prepare_simulator(options); !problem.empty()) {
      std::cerr << "gpuwatch top: " << problem << "\n";
      return kExitUsage;
    }
    source = std::make_unique<top::LocalSource>(
        collector_options(options), detect::DetectionOptions{options.detectors, options.accounting}, wakeup);
  }
  try {
    run_screen(*source, options.interval, signals, *wakeup);
  } catch (const std::runtime_error& e) {
    std::cerr << "gpuwatch top: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void add_top_command(CLI::App& app, CommandAction& action, const TypedFlags& typed) {
  CLI::App* top = app.add_subcommand("top", "A live terminal view of the GPUs, their processes and alerts");
  auto args = std::make_shared<TopArgs>();
  top->add_option("--url", args->url,
                  "Read a running agent (e.g. http://127.0.0.1:19400) instead of the GPUs of this host");
  args->flags = std::make_unique<AgentFlags>(*top, kTopCommand, ConfigFlag::kTaken, typed);
  top->callback([&action, args] { action = [args] { return run_top(*args); }; });
}

}  // namespace gpuwatch
