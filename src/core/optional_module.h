// An optional module: a shared object of gpuwatch's own (the kubelet client, the remote-write wire format)
// that the binary opens with dlopen only when its feature is configured, so that the agent without the
// feature and every one-shot command map none of the module's libraries (docs/architecture.md, "Optional
// modules"). Module and binary are built from one tree; the entry point's name carries the interface's
// version, so a module of another interface is refused rather than called.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace gpuwatch {

// Where the module file_name is found: next to the binary in a build tree (<bindir>/<file_name>), else the
// installed PREFIX/lib/gpuwatch/<file_name>; the installed path when neither exists.
std::string default_module_path(const std::string& file_name);

class OptionalModule {
 public:
  // Opens path ("" = default_module_path(file_name)) and finds its entry point `symbol`. The error names the
  // path and what the loader said. Opened with RTLD_NODELETE: a module's libraries may keep threads and exit
  // handlers of their own (gRPC, protobuf), which must not outlive its code, so the code stays mapped until
  // the process exits.
  static std::variant<OptionalModule, std::string> open(const std::string& path, const std::string& file_name,
                                                        const char* symbol);

  // The entry point, as the type the module defines it with.
  template <typename Function>
  Function* entry() const {
    return reinterpret_cast<Function*>(entry_);
  }
  const std::string& path() const { return path_; }

  // The object the module made, sharing ownership of the module: it stays loaded while the object lives, and
  // the object is destroyed before it is closed.
  template <typename T>
  std::shared_ptr<T> keep_with(std::unique_ptr<T> object) && {
    struct Both {
      OptionalModule module;  // declared first: closed after the object is gone
      std::unique_ptr<T> object;
    };
    auto both = std::make_shared<Both>(Both{std::move(*this), std::move(object)});
    return {both, both->object.get()};
  }

 private:
  struct Closer {
    void operator()(void* handle) const;
  };
  std::unique_ptr<void, Closer> handle_;
  void* entry_ = nullptr;
  std::string path_;
};

// Loads a module and makes its object with its entry point, called as entry(args..., &object, &error), the
// object keeping the module loaded. Throws Error: "module_missing: the <feature> module: " and why it cannot
// be loaded, else what the module said when it made nothing.
template <typename T, typename Error, typename Entry, typename... Args>
std::shared_ptr<T> make_with_module(const std::string& path, const std::string& file_name, const char* symbol,
                                    const std::string& feature, Args&&... args) {
  auto opened = OptionalModule::open(path, file_name, symbol);
  if (auto* why = std::get_if<std::string>(&opened))
    throw Error("module_missing: the " + feature + " module: " + *why);
  auto& module = std::get<OptionalModule>(opened);
  std::unique_ptr<T> object;
  std::string error;
  module.template entry<Entry>()(std::forward<Args>(args)..., &object, &error);
  if (!object)
    throw Error(error.empty() ? "the " + feature + " module " + module.path() + " made nothing" : error);
  return std::move(module).keep_with(std::move(object));
}

}  // namespace gpuwatch
