// A small POSIX-style word splitter. It implements exactly the part of the shell grammar that has
// a meaning without a shell (quoting and escaping) and refuses everything else, because silently
// passing `|` or `*` as a literal argument would run a different command from the one the user
// wrote.
#include "exec/command_line.h"

#include <cctype>
#include <optional>

namespace kopt::exec {
namespace {

const char* const kWrapHint = "; to use shell syntax, wrap the command in bash -c '...' explicitly";

// A word under construction, remembering which characters were quoted: only an unquoted
// `NAME=` prefix makes an environment assignment (`"A=1" cmd` runs a program called `A=1`).
struct Word {
  std::string text;
  std::vector<bool> quoted;
  bool started = false;  // `''` is a real (empty) word
  void add(char c, bool isQuoted) {
    text.push_back(c);
    quoted.push_back(isQuoted);
    started = true;
  }
};

bool isNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `NAME=value` with NAME and `=` unquoted; returns the position of `=`.
std::optional<size_t> assignmentSplit(const Word& w) {
  if (w.text.empty() || !isNameStart(w.text[0]) || w.quoted[0]) return std::nullopt;
  for (size_t i = 1; i < w.text.size(); ++i) {
    if (w.quoted[i]) return std::nullopt;
    if (w.text[i] == '=') return i;
    if (!isNameChar(w.text[i])) return std::nullopt;
  }
  return std::nullopt;
}

std::string describe(const std::string& what, size_t index, const std::string& line) {
  return what + " at column " + std::to_string(index + 1) + " of: " + line + kWrapHint;
}

// The operator starting at line[i], if any (longest match first, so the message says `&&`).
std::optional<std::string> unquotedOperator(const std::string& line, size_t i) {
  static const char* const kTwo[] = {"&&", "||", ">>", "<<", ">&", "<&", "$(", "${", ";;"};
  for (const char* op : kTwo) {
    if (line.compare(i, 2, op) == 0) return std::string(op);
  }
  switch (line[i]) {
    case '|': case ';': case '&': case '>': case '<': case '(': case ')': case '`':
      return std::string(1, line[i]);
    default:
      return std::nullopt;
  }
}

}  // namespace

std::variant<ParsedCommand, CommandParseError> parseCommandLine(const std::string& line) {
  auto fail = [&](const std::string& what, size_t i) {
    return CommandParseError{describe(what, i, line)};
  };
  std::vector<Word> words;
  Word cur;
  auto endWord = [&] {
    if (cur.started) words.push_back(std::move(cur));
    cur = Word{};
  };

  const size_t n = line.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t') {
      endWord();
    } else if (c == '\n' || c == '\r') {
      return fail("unsupported line break (a command separator in a shell)", i);
    } else if (c == '\\') {
      if (i + 1 >= n) return fail("a trailing backslash escapes nothing", i);
      ++i;
      if (line[i] == '\n') continue;  // line continuation, as in a shell
      cur.add(line[i], true);
    } else if (c == '\'') {
      const size_t close = line.find('\'', i + 1);
      if (close == std::string::npos) return fail("unterminated single quote", i);
      cur.started = true;
      for (size_t j = i + 1; j < close; ++j) cur.add(line[j], true);
      i = close;
    } else if (c == '"') {
      const size_t open = i;
      cur.started = true;
      bool closed = false;
      for (++i; i < n; ++i) {
        const char d = line[i];
        if (d == '"') {
          closed = true;
          break;
        }
        if (d == '$' || d == '`') {
          return fail(std::string("unsupported expansion '") + d + "' inside double quotes (use single quotes for a literal)", i);
        }
        if (d == '\\' && i + 1 < n) {
          const char e = line[i + 1];
          if (e == '"' || e == '\\' || e == '$' || e == '`') {
            cur.add(e, true);
            ++i;
            continue;
          }
          if (e == '\n') {
            ++i;
            continue;
          }
        }
        cur.add(d, true);
      }
      if (!closed) return fail("unterminated double quote", open);
    } else if (auto op = unquotedOperator(line, i)) {
      return fail("unsupported shell operator '" + *op + "'", i);
    } else if (c == '$') {
      return fail("unsupported variable expansion '$' (kopt runs commands without a shell)", i);
    } else if (c == '*' || c == '?' || c == '[') {
      return fail(std::string("unsupported glob '") + c + "' (quote it to pass it literally)", i);
    } else if (c == '~' && !cur.started) {
      return fail("unsupported home-directory expansion '~'", i);
    } else if (c == '#' && !cur.started) {
      return fail("unsupported comment '#'", i);
    } else {
      cur.add(c, false);
    }
  }
  endWord();

  ParsedCommand parsed;
  size_t first = 0;
  for (; first < words.size(); ++first) {
    auto eq = assignmentSplit(words[first]);
    if (!eq) break;
    const std::string& t = words[first].text;
    parsed.env[t.substr(0, *eq)] = t.substr(*eq + 1);
  }
  for (size_t i = first; i < words.size(); ++i) parsed.argv.push_back(std::move(words[i].text));
  if (parsed.argv.empty()) {
    return CommandParseError{line.find_first_not_of(" \t") == std::string::npos
                                 ? std::string("empty command: give the program to run and its arguments")
                                 : "no program to run after the environment assignments in: " + line};
  }
  return parsed;
}

}  // namespace kopt::exec
