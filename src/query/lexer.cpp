#include "query/lexer.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <system_error>

#include "query/query_error.h"

namespace gpuwatch::query {
namespace {

// ':' may continue a name (recording rules) but not start one, so `[5m:1m]` reads as a subquery.
bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || c == ':' || std::isdigit(static_cast<unsigned char>(c));
}
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Milliseconds of one unit, or 0 when `unit` is not one.
long long unit_ms(std::string_view unit) {
  if (unit == "ms") return 1;
  if (unit == "s") return 1000;
  if (unit == "m") return 60'000;
  if (unit == "h") return 3'600'000;
  if (unit == "d") return 86'400'000;
  if (unit == "w") return 7 * 86'400'000LL;
  if (unit == "y") return 365 * 86'400'000LL;
  return 0;
}

class Lexer {
 public:
  explicit Lexer(std::string_view q) : q_(q) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (true) {
      skip_space();
      Token t;
      t.position = static_cast<int>(i_);
      if (i_ >= q_.size()) {
        out.push_back(t);
        return out;
      }
      const char c = q_[i_];
      if (is_digit(c) || (c == '.' && i_ + 1 < q_.size() && is_digit(q_[i_ + 1]))) {
        number_or_duration(t);
      } else if (is_ident_start(c)) {
        identifier(t);
      } else if (c == '"' || c == '\'' || c == '`') {
        string_literal(t);
      } else {
        punctuation(t);
      }
      out.push_back(std::move(t));
    }
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw bad_data(position_text(q_, static_cast<int>(at)) + ": parse error: " + what);
  }

  void skip_space() {
    while (i_ < q_.size()) {
      if (std::isspace(static_cast<unsigned char>(q_[i_]))) {
        ++i_;
      } else if (q_[i_] == '#') {  // a comment runs to the end of the line
        while (i_ < q_.size() && q_[i_] != '\n') ++i_;
      } else {
        return;
      }
    }
  }

  void number_or_duration(Token& t) {
    const std::size_t start = i_;
    if (q_[i_] == '0' && i_ + 1 < q_.size() && (q_[i_ + 1] == 'x' || q_[i_ + 1] == 'X')) {
      i_ += 2;
      while (i_ < q_.size() && std::isxdigit(static_cast<unsigned char>(q_[i_]))) ++i_;
      t.kind = Token::Kind::kNumber;
      t.text = std::string(q_.substr(start, i_ - start));
      // As Prometheus (strconv.ParseInt(s, 0, 64), then ParseFloat, which takes no hex without an exponent):
      // a hex literal beyond int64 is a parse error.
      std::int64_t n = 0;
      const char* digits = t.text.data() + 2;
      const auto [end, ec] = std::from_chars(digits, t.text.data() + t.text.size(), n, 16);
      if (ec == std::errc::result_out_of_range)
        fail(start, "error parsing number: \"" + t.text + "\" is out of range");
      if (ec != std::errc() || end == digits) fail(start, "bad number syntax: \"" + t.text + "\"");
      t.number = static_cast<double>(n);
      return;
    }
    std::size_t j = i_;
    while (j < q_.size() && is_digit(q_[j])) ++j;
    // A duration: integer and unit pairs with nothing between them.
    if (j > i_ && j < q_.size() && std::isalpha(static_cast<unsigned char>(q_[j])) && q_[j] != 'e' &&
        q_[j] != 'E') {
      duration(t);
      return;
    }
    if (j < q_.size() && q_[j] == '.') {
      ++j;
      while (j < q_.size() && is_digit(q_[j])) ++j;
    }
    if (j < q_.size() && (q_[j] == 'e' || q_[j] == 'E')) {
      std::size_t k = j + 1;
      if (k < q_.size() && (q_[k] == '+' || q_[k] == '-')) ++k;
      if (k < q_.size() && is_digit(q_[k])) {
        j = k;
        while (j < q_.size() && is_digit(q_[j])) ++j;
      }
    }
    if (j < q_.size() && is_ident_char(q_[j]))
      fail(start, "bad number or duration syntax: \"" + std::string(q_.substr(start, j + 1 - start)) + "\"");
    t.kind = Token::Kind::kNumber;
    t.text = std::string(q_.substr(start, j - start));
    t.number = std::strtod(t.text.c_str(), nullptr);
    // Go's ParseFloat (Prometheus) refuses a literal beyond the largest double; an underflow is just 0.
    if (std::isinf(t.number)) fail(start, "error parsing number: \"" + t.text + "\" is out of range");
    i_ = j;
  }

  void duration(Token& t) {
    const std::size_t start = i_;
    long long total = 0;
    long long last_unit = std::numeric_limits<long long>::max();
    while (i_ < q_.size() && is_digit(q_[i_])) {
      std::size_t j = i_;
      while (j < q_.size() && is_digit(q_[j])) ++j;
      long long n = 0;
      const bool read = std::from_chars(q_.data() + i_, q_.data() + j, n).ec == std::errc();
      std::size_t k = j;
      while (k < q_.size() && std::isalpha(static_cast<unsigned char>(q_[k]))) ++k;
      const long long unit = unit_ms(q_.substr(j, k - j));
      if (unit == 0 || unit >= last_unit) {
        fail(start, "bad duration syntax: \"" + std::string(q_.substr(start, k - start)) + "\"");
      }
      last_unit = unit;
      long long part = 0;
      if (!read || __builtin_mul_overflow(n, unit, &part) || __builtin_add_overflow(total, part, &total)) {
        fail(start, "duration out of range: \"" + std::string(q_.substr(start, k - start)) + "\"");
      }
      i_ = k;
    }
    if (i_ < q_.size() && is_ident_char(q_[i_]) && q_[i_] != ':') {
      fail(start, "bad duration syntax: \"" + std::string(q_.substr(start, i_ + 1 - start)) + "\"");
    }
    t.kind = Token::Kind::kDuration;
    t.text = std::string(q_.substr(start, i_ - start));
    t.duration_ms = total;
  }

  void identifier(Token& t) {
    const std::size_t start = i_;
    while (i_ < q_.size() && is_ident_char(q_[i_])) ++i_;
    t.text = std::string(q_.substr(start, i_ - start));
    if (iequals(t.text, "inf") || iequals(t.text, "nan")) {
      t.kind = Token::Kind::kNumber;
      t.number = iequals(t.text, "inf") ? std::numeric_limits<double>::infinity()
                                        : std::numeric_limits<double>::quiet_NaN();
      return;
    }
    t.kind = Token::Kind::kIdentifier;
  }

  void string_literal(Token& t) {
    const std::size_t start = i_;
    const char quote = q_[i_++];
    std::string value;
    while (true) {
      if (i_ >= q_.size()) fail(start, "unterminated quoted string");
      const char c = q_[i_++];
      if (c == quote) break;
      if (c == '\\' && quote != '`') {
        if (i_ >= q_.size()) fail(start, "unterminated quoted string");
        value += escape(q_[i_++], start);
      } else {
        if (c == '\n' && quote != '`') fail(start, "unterminated quoted string");
        value += c;
      }
    }
    t.kind = Token::Kind::kString;
    t.text = std::move(value);
  }

  std::string escape(char c, std::size_t start) {
    switch (c) {
      case 'n':
        return "\n";
      case 't':
        return "\t";
      case 'r':
        return "\r";
      case 'a':
        return "\a";
      case 'b':
        return "\b";
      case 'f':
        return "\f";
      case 'v':
        return "\v";
      case '\\':
        return "\\";
      case '"':
        return "\"";
      case '\'':
        return "'";
      case 'x': {
        // Exactly two hex digits, as Go's strconv.Unquote (and so Prometheus) reads them.
        const auto hex = [](char h) {
          return h >= '0' && h <= '9'   ? h - '0'
                 : h >= 'a' && h <= 'f' ? h - 'a' + 10
                 : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                        : -1;
        };
        if (i_ + 2 > q_.size() || hex(q_[i_]) < 0 || hex(q_[i_ + 1]) < 0) fail(start, "bad escape in string");
        const int v = hex(q_[i_]) * 16 + hex(q_[i_ + 1]);
        i_ += 2;
        return std::string(1, static_cast<char>(v));
      }
      default:
        fail(i_ - 1, std::string("unknown escape sequence '\\") + c + "'");
    }
  }

  void punctuation(Token& t) {
    static constexpr std::string_view kTwoChar[] = {"==", "!=", ">=", "<=", "=~", "!~"};
    for (std::string_view op : kTwoChar) {
      if (q_.substr(i_, 2) == op) {
        t.kind = Token::Kind::kOperator;
        t.text = std::string(op);
        i_ += 2;
        return;
      }
    }
    const char c = q_[i_];
    t.text = std::string(1, c);
    switch (c) {
      case '(':
        t.kind = Token::Kind::kLeftParen;
        break;
      case ')':
        t.kind = Token::Kind::kRightParen;
        break;
      case '{':
        t.kind = Token::Kind::kLeftBrace;
        break;
      case '}':
        t.kind = Token::Kind::kRightBrace;
        break;
      case '[':
        t.kind = Token::Kind::kLeftBracket;
        break;
      case ']':
        t.kind = Token::Kind::kRightBracket;
        break;
      case ',':
        t.kind = Token::Kind::kComma;
        break;
      case ':':
        t.kind = Token::Kind::kColon;
        break;
      case '@':
        t.kind = Token::Kind::kAt;
        break;
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
      case '^':
      case '=':
      case '>':
      case '<':
        t.kind = Token::Kind::kOperator;
        break;
      default:
        fail(i_, std::string("unexpected character: '") + c + "'");
    }
    ++i_;
  }

  std::string_view q_;
  std::size_t i_ = 0;
};

}  // namespace

std::vector<Token> tokenize(std::string_view query) {
  return Lexer(query).run();
}

std::string position_text(std::string_view query, int offset) {
  int line = 1;
  int column = 1;
  for (int i = 0; i < offset && i < static_cast<int>(query.size()); ++i) {
    if (query[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace gpuwatch::query
