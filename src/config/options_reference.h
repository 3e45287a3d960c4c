// The settings table of docs/configuration.md, generated from the option table so the docs cannot drift.
#pragma once

#include <string>

namespace gpuwatch {

std::string options_reference_markdown();

}  // namespace gpuwatch
