#include "exec/command_line.h"

#include <doctest/doctest.h>

using kopt::exec::CommandParseError;
using kopt::exec::ParsedCommand;
using kopt::exec::parseCommandLine;

namespace {

ParsedCommand ok(const std::string& line) {
  auto r = parseCommandLine(line);
  if (auto* err = std::get_if<CommandParseError>(&r)) FAIL("unexpected error: " << err->message);
  return std::get<ParsedCommand>(r);
}

std::string error(const std::string& line) {
  auto r = parseCommandLine(line);
  REQUIRE_MESSAGE(std::holds_alternative<CommandParseError>(r), "expected an error for: " << line);
  return std::get<CommandParseError>(r).message;
}

using Argv = std::vector<std::string>;

}  // namespace

TEST_CASE("plain words split on blanks and tabs") {
  CHECK(ok("python bench.py --x 1").argv == Argv{"python", "bench.py", "--x", "1"});
  CHECK(ok("  a \t b  ").argv == Argv{"a", "b"});
  CHECK(ok("a").env.empty());
}

TEST_CASE("single quotes keep everything literal") {
  CHECK(ok("echo 'a b' 'x|y;z$HOME*'").argv == Argv{"echo", "a b", "x|y;z$HOME*"});
  CHECK(ok("echo ''").argv == Argv{"echo", ""});
  CHECK(ok("echo a'b c'd").argv == Argv{"echo", "ab cd"});
  CHECK(ok("echo '\\n'").argv == Argv{"echo", "\\n"});
}

TEST_CASE("double quotes keep blanks and operators, backslash escapes only \" \\ $ `") {
  CHECK(ok("echo \"a b|c\"").argv == Argv{"echo", "a b|c"});
  CHECK(ok("echo \"\"").argv == Argv{"echo", ""});
  CHECK(ok("echo \"q\\\"q\" \"b\\\\s\" \"d\\$\"").argv == Argv{"echo", "q\"q", "b\\s", "d$"});
  CHECK(ok("echo \"\\n\"").argv == Argv{"echo", "\\n"});
  CHECK(ok("echo \"it's\"").argv == Argv{"echo", "it's"});
}

TEST_CASE("backslash outside quotes escapes the next character") {
  CHECK(ok("echo a\\ b").argv == Argv{"echo", "a b"});
  CHECK(ok("echo \\|\\;\\*\\$").argv == Argv{"echo", "|;*$"});
  CHECK(ok("echo a\\\nb").argv == Argv{"echo", "ab"});
  CHECK(error("echo a\\").find("trailing backslash") != std::string::npos);
}

TEST_CASE("leading NAME=value words become the environment") {
  auto p = ok("FOO=1 BAR='x y' _Z= python bench.py A=2");
  CHECK(p.env == std::map<std::string, std::string>{{"FOO", "1"}, {"BAR", "x y"}, {"_Z", ""}});
  CHECK(p.argv == Argv{"python", "bench.py", "A=2"});
  CHECK(ok("FOO=a=b cmd").env.at("FOO") == "a=b");
  // A quoted name or a word that is not a name is an ordinary argument.
  CHECK(ok("'FOO=1' cmd").argv == Argv{"FOO=1", "cmd"});
  CHECK(ok("1X=2 cmd").argv == Argv{"1X=2", "cmd"});
  CHECK(ok("A-B=2 cmd").argv == Argv{"A-B=2", "cmd"});
}

TEST_CASE("shell operators are refused with the bash -c hint and the column") {
  for (const char* line : {"a | b", "a; b", "a & b", "a && b", "a || b", "a > out", "a < in",
                           "a >> out", "a 2>&1", "echo $(pwd)", "echo `pwd`", "(a)", "a;b"}) {
    CAPTURE(line);
    const std::string msg = error(line);
    CHECK(msg.find("bash -c") != std::string::npos);
    CHECK(msg.find("unsupported") != std::string::npos);
  }
  CHECK(error("a && b").find("'&&' at column 3") != std::string::npos);
  CHECK(error("a 2>&1").find("'>&'") != std::string::npos);
}

TEST_CASE("expansions, globs, tilde and comments are refused") {
  CHECK(error("echo $HOME").find("'$'") != std::string::npos);
  CHECK(error("echo ${HOME}").find("'${'") != std::string::npos);
  CHECK(error("echo \"$HOME\"").find("inside double quotes") != std::string::npos);
  CHECK(error("echo \"`x`\"").find("inside double quotes") != std::string::npos);
  CHECK(error("ls *.py").find("glob '*'") != std::string::npos);
  CHECK(error("ls a?").find("glob '?'") != std::string::npos);
  CHECK(error("ls [ab]").find("glob '['") != std::string::npos);
  CHECK(error("cat ~/x").find("'~'") != std::string::npos);
  CHECK(error("a # note").find("comment") != std::string::npos);
  // Mid-word ~ and # are plain characters in a shell too.
  CHECK(ok("echo a~b a#b").argv == Argv{"echo", "a~b", "a#b"});
}

TEST_CASE("unterminated quotes, line breaks and empty commands are errors") {
  CHECK(error("echo 'abc").find("unterminated single quote at column 6") != std::string::npos);
  CHECK(error("echo \"abc").find("unterminated double quote") != std::string::npos);
  CHECK(error("a\nb").find("line break") != std::string::npos);
  CHECK(error("").find("empty command") != std::string::npos);
  CHECK(error("   ").find("empty command") != std::string::npos);
  CHECK(error("FOO=1").find("no program") != std::string::npos);
}
