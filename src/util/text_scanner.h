#pragma once
// A cursor over one line of text, for the few fixed grammars kopt reads from files and fields an
// agent controls: a setting line in a kernel's source, a duration, a performance target, a Slurm
// time. Linear and without recursion, unlike libstdc++'s std::regex, whose matcher recurses about
// once per character: a 100 KB line in a candidate's header overflowed the stack and killed the
// server (settings_diff), and fuzz_manifest found the same in target_op and timeouts.
#include <cstddef>
#include <string_view>

namespace kopt::util {

// ECMAScript's \s and \w on single bytes, the classes the grammars were first written in.
constexpr bool isRegexSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
constexpr bool isDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool isWordChar(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

class TextScanner {
 public:
  explicit TextScanner(std::string_view text) : text_(text) {}

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  std::size_t position() const { return pos_; }
  void rewind(std::size_t pos) { pos_ = pos < text_.size() ? pos : text_.size(); }
  std::string_view rest() const { return text_.substr(pos_); }
  std::string_view between(std::size_t from, std::size_t to) const { return text_.substr(from, to - from); }

  // Consumes `c` (or `word`) when it comes next; says whether it did.
  bool take(char c) {
    if (peek() != c || atEnd()) return false;
    ++pos_;
    return true;
  }
  bool take(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // The longest run of characters for which `keep` holds, consumed (possibly empty).
  template <typename Predicate>
  std::string_view takeWhile(Predicate keep) {
    const std::size_t from = pos_;
    while (!atEnd() && keep(text_[pos_])) ++pos_;
    return text_.substr(from, pos_ - from);
  }
  std::size_t skipSpaces() { return takeWhile(isRegexSpace).size(); }
  std::string_view digits() { return takeWhile(isDigit); }

  // [A-Za-z_] then word characters and any of `alsoAllowed`; empty (nothing consumed) when the
  // next character cannot start one.
  std::string_view identifier(std::string_view alsoAllowed = {}) {
    const char first = peek();
    if (atEnd() || isDigit(first) || !isWordChar(first)) return {};
    return takeWhile([alsoAllowed](char c) { return isWordChar(c) || alsoAllowed.find(c) != std::string_view::npos; });
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace kopt::util
