// Splits a PromQL expression into tokens. Durations ("5m", "1h30m") are their own token so the parser can
// tell `x[5m]` from arithmetic; identifiers keep ':' (recording-rule names).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::query {

struct Token {
  enum class Kind {
    kIdentifier,
    kNumber,
    kDuration,
    kString,
    kLeftParen,
    kRightParen,
    kLeftBrace,
    kRightBrace,
    kLeftBracket,
    kRightBracket,
    kComma,
    kColon,
    kAt,
    kOperator,  // + - * / % ^ == != > < >= <= and the matcher operators = =~ !~ (text holds it)
    kEnd,
  };
  Kind kind = Kind::kEnd;
  std::string text;           // as written, except strings: their unescaped value
  double number = 0;          // kNumber
  long long duration_ms = 0;  // kDuration
  int position = 0;           // byte offset
};

// Throws QueryError (bad_data) naming the position for a character or literal it cannot read.
std::vector<Token> tokenize(std::string_view query);

// "line:column" (both from 1) of a byte offset, as Prometheus prints positions.
std::string position_text(std::string_view query, int offset);

}  // namespace gpuwatch::query
