#include <doctest/doctest.h>

#include "campaign/refusal.h"

namespace kopt::campaign {

TEST_CASE("refusal: the text says what, why, the phase now, the phase needed and what to call") {
  Refusal r;
  r.code = RefusalCode::UndeclaredFiles;
  r.tool = "validate_round";
  r.why = "the diff touches undeclared files";
  r.phaseNow = Phase::Optimize;
  r.phaseNeeded = {Phase::Optimize, Phase::Validate};
  r.toolToCall = "validate_round, after reverting them";
  r.details = {"kernel/x.cu (modified)"};
  const std::string t = toText(r);
  CHECK(t.find("validate_round refused (undeclared_files): the diff touches undeclared files") == 0);
  CHECK(t.find("\n  - kernel/x.cu (modified)") != std::string::npos);
  CHECK(t.find("Phase now: OPTIMIZE.") != std::string::npos);
  CHECK(t.find("validate_round needs: OPTIMIZE or VALIDATE.") != std::string::npos);
  CHECK(t.find("Call instead: validate_round, after reverting them.") != std::string::npos);
  Refusal none;
  none.why = "x";
  CHECK(toText(none).find("Phase now: none (no campaign yet)") != std::string::npos);
}

TEST_CASE("refusal: a tool failure names the field and the fix; Outcome carries one of three") {
  const ToolFailure f = toolFailure("is required", "confirmed_by", "pass a name");
  CHECK(toText(f) == "argument 'confirmed_by': is required\nFix: pass a name");
  Outcome<int> ok(3);
  CHECK(ok.ok());
  CHECK(ok.value() == 3);
  CHECK(ok.errorText().empty());
  Outcome<int> failed(f);
  CHECK(failed.failed());
  Outcome<std::string> forwarded = errorOf<std::string>(failed);
  CHECK(forwarded.failed());
  CHECK(forwarded.failure().field == "confirmed_by");
  Refusal r;
  r.why = "no";
  Outcome<int> refused(r);
  CHECK(refused.refused());
  CHECK(errorOf<double>(refused).refused());
}

}  // namespace kopt::campaign
