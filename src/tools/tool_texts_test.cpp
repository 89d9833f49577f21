#include "tools/tool_texts.h"

#include <stdexcept>

#include <doctest/doctest.h>

#include "tools/typed_tool_spec.h"

using namespace kopt::tools;

TEST_CASE("a tool's words come from the one table, and a name without words is refused") {
  const ToolText text = toolText("append_tip");
  CHECK(text.name == "append_tip");
  CHECK(text.title == "Append a historical tip");
  CHECK(text.description.find("tips.md") != std::string::npos);
  // A factory asking for a tool nobody wrote words for fails at the first start, not in tools/list.
  CHECK_THROWS_AS(toolText("no_such_tool"), std::logic_error);
}

TEST_CASE("typedResponse puts the result's own summary first and its JSON beside it") {
  kopt::campaign::AppendTipResult tip;
  tip.path = "/tips/h200/rmsnorm/triton/tips.md";
  const kopt::mcp::ToolResult r = typedResponse(kopt::campaign::Outcome<kopt::campaign::AppendTipResult>(tip));
  REQUIRE(r.content.size() == 2);
  CHECK(r.content[0]["text"] == "Tip appended to /tips/h200/rmsnorm/triton/tips.md");
  REQUIRE(r.structuredContent);
  CHECK((*r.structuredContent)["path"] == tip.path);
  CHECK(json::parse(r.content[1]["text"].get<std::string>()) == *r.structuredContent);
}
