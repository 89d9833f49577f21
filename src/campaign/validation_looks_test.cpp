#include "campaign/validation_looks.h"

#include <doctest/doctest.h>

using namespace kopt::campaign;
namespace measure = kopt::measure;

TEST_CASE("validation looks: a measurement's tag names the round, the kind and the ordinal") {
  CHECK(validationTag(3, false, 2) == "r3-validate-quick-2");
  CHECK(validationTag(12, true, 5) == "r12-validate-full-5");
}

TEST_CASE("validation looks: process pairs add what the gate asks, at least one, never past the cap") {
  measure::GatePolicy p;
  p.maxPairs = 24;
  p.remeasurePairs = 8;
  CHECK(pairsForNextLook(false, 8, p, 8, 8) == 8);
  CHECK(pairsForNextLook(false, 8, p, 8, 3) == 3);
  CHECK(pairsForNextLook(false, 8, p, 8, 0) == 8);    // the gate names none: the policy's batch
  CHECK(pairsForNextLook(false, 8, p, 20, 8) == 4);   // only the room left under the cap
  CHECK(pairsForNextLook(false, 8, p, 23, 8) == 1);
  CHECK(pairsForNextLook(false, 8, p, 24, 8) == 0);   // at the cap: no further look
  CHECK(pairsForNextLook(false, 8, p, 30, 8) == 0);
}

TEST_CASE("validation looks: worker mode adds one look's blocks every time") {
  measure::GatePolicy p;
  p.maxPairs = 24;
  // Blocks are not process pairs: the cap on process pairs does not bound them, and every look
  // adds the same number (equally spaced information).
  CHECK(pairsForNextLook(true, 6, p, 40, 2) == 6);
  CHECK(pairsForNextLook(true, 6, p, 0, 0) == 6);
  CHECK(pairsForNextLook(true, 0, p, 0, 4) == 0);
}

TEST_CASE("validation looks: only a small accepted quick win on a smaller shape set escalates") {
  const ValidationVerdict accept{RoundVerdict::Accept, {}};
  const ValidationVerdict note{RoundVerdict::AcceptWithNote, {}};
  const ValidationVerdict rollback{RoundVerdict::Rollback, {}};
  CHECK(escalatesToFull(accept, false, 0.02, 0.05, true));
  CHECK(escalatesToFull(note, false, 0.02, 0.05, true));
  CHECK_FALSE(escalatesToFull(rollback, false, 0.02, 0.05, true));
  CHECK_FALSE(escalatesToFull(accept, true, 0.02, 0.05, true));    // already full
  CHECK_FALSE(escalatesToFull(accept, false, 0.05, 0.05, true));   // gain at the threshold
  CHECK_FALSE(escalatesToFull(accept, false, 0.02, 0.05, false));  // full adds no shape
}

TEST_CASE("validation looks: the measurement's check line says yes only with every Check PASS and no drift") {
  AssembledRuns a;
  a.candidateChecks = {{"m64", measure::Check::Pass}, {"m128", measure::Check::Pass}};
  const std::string prefix = "all Check PASS, schema byte-identical and shape set identical: ";
  CHECK(measurementCheckLine(a) == prefix + "yes");
  CHECK(measurementCheckLine(AssembledRuns{}) == prefix + "yes");  // nothing measured fails nothing
  a.schemaDrift = true;
  CHECK(measurementCheckLine(a) == prefix + "no");
  a.schemaDrift = false;
  a.shapeSetDrift = true;
  CHECK(measurementCheckLine(a) == prefix + "no");
  a.shapeSetDrift = false;
  a.candidateChecks[1].second = measure::Check::Fail;
  CHECK(measurementCheckLine(a) == prefix + "no");
}
