#include "query/label_functions.h"

#include <re2/re2.h>

#include <memory>

#include "core/label_matcher.h"
#include "query/labels_util.h"
#include "query/query_error.h"

namespace gpuwatch::query {
namespace {

const std::string& label_value(const store::Labels& labels, const std::string& name) {
  static const std::string kEmpty;
  for (const auto& [n, v] : labels) {
    if (n == name) return v;
  }
  return kEmpty;
}

// Go's regexp name characters (letters, digits, '_'); any byte of a multi-byte character counts as a
// letter, as nearly all such characters after a '$' are.
bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// The group a reference names: its number (no leading zeros, below 1e8), else a named group; -1: none.
int group_index(const re2::RE2& re, std::string_view name) {
  int number = 0;
  bool numeric = !(name.size() > 1 && name[0] == '0');
  for (const char c : name) {
    if (c < '0' || c > '9' || number >= 100'000'000) {
      numeric = false;
      break;
    }
    number = number * 10 + (c - '0');
  }
  if (numeric) return number;
  const auto& named = re.NamedCapturingGroups();
  const auto it = named.find(std::string(name));
  return it == named.end() ? -1 : it->second;
}

// Go's Regexp.Expand: `$` followed by a name or `{name}` is replaced by that group (nothing when it did
// not take part or does not exist), `$$` is a `$`, and a malformed reference is left as text.
std::string expand(const re2::RE2& re, std::string_view tmpl, const std::vector<re2::StringPiece>& groups) {
  std::string out;
  std::size_t i = 0;
  while (i < tmpl.size()) {
    const std::size_t dollar = tmpl.find('$', i);
    if (dollar == std::string_view::npos) break;
    out.append(tmpl.substr(i, dollar - i));
    i = dollar + 1;
    if (i < tmpl.size() && tmpl[i] == '$') {
      out += '$';
      ++i;
      continue;
    }
    const bool brace = i < tmpl.size() && tmpl[i] == '{';
    std::size_t start = brace ? i + 1 : i;
    std::size_t end = start;
    while (end < tmpl.size() && name_char(tmpl[end])) ++end;
    if (end == start || (brace && (end >= tmpl.size() || tmpl[end] != '}'))) {
      out += '$';  // malformed: the '$' is text and what follows is read on
      continue;
    }
    const int g = group_index(re, tmpl.substr(start, end - start));
    if (g >= 0 && static_cast<std::size_t>(g) < groups.size() && groups[g].data() != nullptr) {
      out.append(groups[g].data(), groups[g].size());
    }
    i = brace ? end + 1 : end;
  }
  out.append(tmpl.substr(std::min(i, tmpl.size())));
  return out;
}

}  // namespace

Value label_replace(Value v, const std::string& dst, const std::string& replacement, const std::string& src,
                    const std::string& regex) {
  std::shared_ptr<const re2::RE2> re;
  try {
    re = compile_regex("^(?-s:" + regex + ")$");
  } catch (const InvalidRegex&) {
    throw execution_error("invalid regular expression in label_replace(): " + regex);
  }
  if (!is_label_name(dst)) throw execution_error("invalid destination label name in label_replace(): " + dst);
  std::vector<re2::StringPiece> groups(static_cast<std::size_t>(re->NumberOfCapturingGroups()) + 1);
  for (auto& s : v.vector) {
    const std::string& value = label_value(s.labels, src);
    if (!re->Match(value, 0, value.size(), re2::RE2::UNANCHORED, groups.data(),
                   static_cast<int>(groups.size())))
      continue;
    set_label(s.labels, dst, expand(*re, replacement, groups));
  }
  merge_equal_labels(v.vector);
  return v;
}

Value label_join(Value v, const std::string& dst, const std::string& separator,
                 const std::vector<std::string>& src) {
  for (const auto& name : src) {
    if (!is_label_name(name)) throw execution_error("invalid source label name in label_join(): " + name);
  }
  if (!is_label_name(dst)) throw execution_error("invalid destination label name in label_join(): " + dst);
  for (auto& s : v.vector) {
    std::string joined;
    for (std::size_t i = 0; i < src.size(); ++i) {
      if (i) joined += separator;
      joined += label_value(s.labels, src[i]);
    }
    set_label(s.labels, dst, joined);
  }
  merge_equal_labels(v.vector);
  return v;
}

}  // namespace gpuwatch::query
