#include "cli/campaign_script.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using nlohmann::json;
using namespace kopt::cli;

TEST_CASE("a script parses tool and edit steps and names the step at fault") {
  json doc = json::parse(R"({"kernel_dir": "kernels/cpu", "steps": [
      {"tool": "define_target", "args": {"repo_path": "${repo}"}, "capture": {"campaign_dir": "/campaign_dir"}},
      {"edit": {"file": "a.h", "replace": "X 1", "with": "X 2"}}]})");
  auto parsed = parseCampaignScript(doc);
  REQUIRE(parsed.index() == 0);
  const auto& script = std::get<CampaignScript>(parsed);
  CHECK(script.steps.size() == 2);
  CHECK(std::get<ToolStep>(script.steps[0].action).capture.at("campaign_dir") == "/campaign_dir");

  doc["steps"].push_back(json{{"say", "nothing to do"}});
  auto bad = parseCampaignScript(doc);
  REQUIRE(bad.index() == 1);
  CHECK(std::get<std::string>(bad).find("steps[2]") != std::string::npos);
}

TEST_CASE("substitution expands variables and refuses unknown ones") {
  auto ok = substitute(json{{"a", "${repo}/x"}, {"n", 3}}, {{"repo", "/r"}}, ".");
  REQUIRE(ok.index() == 0);
  CHECK(std::get<json>(ok)["a"] == "/r/x");
  CHECK(std::get<json>(ok)["n"] == 3);
  auto bad = substitute(json("${nope}"), {}, ".");
  REQUIRE(bad.index() == 1);
  CHECK(std::get<std::string>(bad).find("${nope}") != std::string::npos);
}

TEST_CASE("an edit must match exactly once") {
  auto dir = std::filesystem::temp_directory_path() / "kopt_script_edit_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "c.h") << "#define A 1\n#define B 1\n";
  CHECK_FALSE(applyEdit(dir, {"c.h", "#define A 1", "#define A 8"}).has_value());
  CHECK(applyEdit(dir, {"c.h", "#define A 1", "#define A 9"}).value().find("not found") != std::string::npos);
  CHECK(applyEdit(dir, {"c.h", "#define", "#undef"}).value().find("more than once") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("expectations accept one value or a list of allowed values") {
  ToolStep step;
  step.expect["/decision"] = json::array({"ROLLBACK", "AUDIT"});
  step.expect["/round"] = 2;
  CHECK(checkExpectations(step, json{{"decision", "ROLLBACK"}, {"round", 2}}).empty());
  auto problems = checkExpectations(step, json{{"decision", "ACCEPT"}});
  CHECK(problems.size() == 2);
}
