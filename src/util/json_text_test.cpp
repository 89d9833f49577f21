#include "util/json_text.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

using namespace kopt::util;

TEST_CASE("json text: nesting is counted outside strings and refused past the limit before parsing") {
  CHECK(jsonNestingDepth(R"({"a":"[[[{{{\"[[[","b":[1,[2]]})") == 3);
  CHECK(jsonNestingDepth("[" + std::string(1000, '[')) == kMaxJsonDepth + 1);  // stops counting early
  const std::string atLimit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(parseJsonText(atLimit).has_value());
  std::string problem;
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');  // a SIGSEGV when parsed
  CHECK_FALSE(parseJsonText(deep, &problem).has_value());
  CHECK(problem == "arrays and objects nest deeper than 256 levels");
}

TEST_CASE("json text: garbage and numbers no double holds are a problem, never an exception") {
  std::string problem;
  CHECK_FALSE(parseJsonText("{oops", &problem).has_value());
  CHECK(problem.find("parse error") != std::string::npos);
  CHECK_FALSE(parseJsonText("[1e400]", &problem).has_value());
  CHECK_FALSE(parseJsonText("[" + std::string(1000, '9') + "e999]", &problem).has_value());
  CHECK(problem.size() <= 303);  // the number is quoted in the message: cut at 300 characters and "..."
  CHECK(problem.substr(problem.size() - 3) == "...");
  CHECK(parseJsonText(R"({"a":[1,2.5,"x"]})")->at("a").size() == 3);
}

TEST_CASE("json text: a file that is missing, or not JSON, reads as nullopt with the reason") {
  const auto dir = std::filesystem::temp_directory_path() / ("kopt-json-text-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string problem;
  CHECK_FALSE(readJsonFile(dir / "missing.json", &problem).has_value());
  CHECK(problem == "cannot be read");
  std::ofstream(dir / "state.json") << R"({"phase":"ROUND"})";
  CHECK(readJsonFile(dir / "state.json")->at("phase") == "ROUND");
  std::ofstream(dir / "deep.json") << std::string(5000, '{');
  CHECK_FALSE(readJsonFile(dir / "deep.json", &problem).has_value());
  CHECK(problem.find("nest deeper") != std::string::npos);
  std::filesystem::remove_all(dir);
}
