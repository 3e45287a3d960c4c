#pragma once
// The one error type of the history codec: every refusal (bad input to the encoder) and every
// corruption found by the decoder is a CodecError whose message says what and where.
#include <stdexcept>
#include <string>

namespace gpuwatch::store {

class CodecError : public std::runtime_error {
 public:
  explicit CodecError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace gpuwatch::store
