#include "tools/prompts.h"

#include <doctest/doctest.h>

#include "mcp/registry.h"
#include "tools/resources_test_support.h"

using namespace kopt::tools;
using namespace kopt::tools::prompts;
using kopt::tools::testing::TempWorkspace;

TEST_CASE("a SKILL.md front matter gives name, description and arguments") {
  auto skill = parseSkill(
      "---\nname: kernel-optimize\ndescription: Run the loop\narguments:\n  - name: backend\n    description: the "
      "backend\n    required: true\n  - name: gpu\n---\n# Body {{backend}}\n");
  REQUIRE(skill);
  CHECK(skill->name == "kernel-optimize");
  CHECK(skill->description == "Run the loop");
  REQUIRE(skill->arguments.size() == 2);
  CHECK(skill->arguments[0].required);
  CHECK_FALSE(skill->arguments[1].required);
  CHECK(skill->body == "# Body {{backend}}\n");
}

TEST_CASE("bad front matter is refused with a reason") {
  std::string error;
  CHECK_FALSE(parseSkill("# no front matter\n", &error));
  CHECK(error.find("no front matter") != std::string::npos);
  CHECK_FALSE(parseSkill("---\nname: x\n", &error));
  CHECK(error.find("not closed") != std::string::npos);
  CHECK_FALSE(parseSkill("---\nname: x\n---\nbody", &error));
  CHECK(error.find("'name' and 'description'") != std::string::npos);
  CHECK_FALSE(parseSkill("---\nname: Bad Name\ndescription: d\n---\n", &error));
  CHECK_FALSE(parseSkill("---\nname: x\ndescription: [1, 2]\n---\n", &error));
  CHECK(error.find("'description' must be a string") != std::string::npos);
  CHECK_FALSE(parseSkill("---\nname: x\ndescription: d\narguments: 3\n---\n", &error));
  CHECK_FALSE(parseSkill("---\nname: x\ndescription: d\narguments:\n  - name: a\n  - name: a\n---\n", &error));
  CHECK_FALSE(parseSkill("---\n: : :\n---\n", &error));
  CHECK(parseSkill("\xEF\xBB\xBF---\r\nname: x\r\ndescription: d\r\n---\r\nbody\r\n"));  // BOM + CRLF tolerated
}

TEST_CASE("arguments fill their placeholders; missing ones read <name>; values cannot inject lines") {
  nlohmann::json args{{"backend", "TRITON"}, {"gpu", "gfx942\n# injected heading"}, {"n", 3}};
  CHECK(fillArguments("{{backend}} on {{gpu}} x{{n}} {{repo_path}} {{ not-an-id }} {{", args) ==
        "TRITON on gfx942 # injected heading x3 <repo_path> {{ not-an-id }} {{");
  CHECK(fillArguments("no placeholders", nlohmann::json::object()) == "no placeholders");
}

TEST_CASE("backend and gpu complete from known values") {
  CHECK(completeArgument("backend", "h") == std::vector<std::string>{"HIP", "HIPBLASLT"});
  CHECK(completeArgument("gpu", "gfx9") == std::vector<std::string>{"gfx942", "gfx950", "gfx90a"});
  CHECK(completeArgument("gpu", "").size() == 7);
  CHECK(completeArgument("repo_path", "/").empty());
}

TEST_CASE("the repository's skills load as prompts and fill through the registry") {
  std::vector<std::string> problems;
  auto skills = loadSkills(KOPT_SOURCE_DIR "/skills", &problems);
  CHECK_MESSAGE(problems.empty(), (problems.empty() ? "" : problems[0]));
  std::vector<std::string> names;
  for (const auto& s : skills) names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"kernel-optimize", "kopt", "optimize-handoff", "verify-performance"});

  kopt::mcp::Registry registry;
  registerPrompts(registry, KOPT_SOURCE_DIR "/skills");
  auto list = std::get<nlohmann::json>(registry.listPrompts(nlohmann::json::object()));
  REQUIRE(list["prompts"].size() == 4);
  for (const auto& p : list["prompts"]) CHECK_FALSE(p["description"].get<std::string>().empty());

  auto got = registry.getPrompt({{"name", "kernel-optimize"},
                                 {"arguments", {{"target_op", "gemm"}, {"backend", "TRITON"}, {"gpu", "gfx942"}}}});
  REQUIRE(std::holds_alternative<nlohmann::json>(got));
  std::string text = std::get<nlohmann::json>(got)["messages"][0]["content"]["text"];
  CHECK(text.find("Target: `gemm` on `TRITON` for `gfx942`, repository `<repo_path>`.") != std::string::npos);
  CHECK(text.find("{{") == std::string::npos);

  auto completion = std::get<nlohmann::json>(registry.complete(
      {{"ref", {{"type", "ref/prompt"}, {"name", "optimize-handoff"}}}, {"argument", {{"name", "gpu"}, {"value", "gfx95"}}}}));
  CHECK(completion["completion"]["values"] == nlohmann::json::array({"gfx950"}));
}

TEST_CASE("a broken or duplicate skill is skipped, the others still load") {
  TempWorkspace ws;
  TempWorkspace::write(ws.root / "SKILL.md", "---\nname: hub\ndescription: the hub\n---\nhub\n");
  TempWorkspace::write(ws.root / "a" / "SKILL.md", "---\nname: hub\ndescription: again\n---\n");
  TempWorkspace::write(ws.root / "b" / "SKILL.md", "not a skill");
  TempWorkspace::write(ws.root / "c" / "SKILL.md", "---\nname: c\ndescription: fine\n---\n");
  std::vector<std::string> problems;
  auto skills = loadSkills(ws.root, &problems);
  CHECK(skills.size() == 2);
  CHECK(problems.size() == 2);
  CHECK(loadSkills(ws.root / "missing").empty());
}
