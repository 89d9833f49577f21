#include "campaign/round_vocabulary.h"

#include <doctest/doctest.h>

#include <string>

using namespace kopt::campaign;

TEST_CASE("Rule-11 buckets parse case-insensitively; W2/W3 are forbidden") {
  CHECK(rule11BucketFromString(" k3 ") == std::optional<Rule11Bucket>(Rule11Bucket::K3));
  CHECK(rule11BucketFromString("W1") == std::optional<Rule11Bucket>(Rule11Bucket::W1));
  CHECK_FALSE(rule11BucketFromString("K5").has_value());
  CHECK_FALSE(rule11BucketFromString("").has_value());
  for (auto b : {Rule11Bucket::K1, Rule11Bucket::K2, Rule11Bucket::K3, Rule11Bucket::K4, Rule11Bucket::W1})
    CHECK(isAllowed(b));
  CHECK_FALSE(isAllowed(Rule11Bucket::W2));
  CHECK_FALSE(isAllowed(Rule11Bucket::W3));
  CHECK(std::string(describe(Rule11Bucket::K3)) == "single-launch fusion");
}

TEST_CASE("a round without a bucket reads '-' in a table cell") {
  CHECK(bucketCell(Rule11Bucket::W1) == "W1");
  CHECK(bucketCell(std::nullopt) == "-");
}

TEST_CASE("status names are the loop contract's, and what the turbo helper counts (ROLL*, ACC*)") {
  CHECK(std::string(toString(RoundStatus::Baseline)) == "BASELINE");
  CHECK(std::string(toString(RoundStatus::Accepted)) == "ACCEPTED");
  CHECK(std::string(toString(RoundStatus::AcceptedWithNote)) == "ACCEPTED WITH NOTE");
  CHECK(std::string(toString(RoundStatus::RolledBack)) == "ROLLED BACK");
  CHECK(isAccepted(RoundStatus::AcceptedWithNote));
  CHECK_FALSE(isAccepted(RoundStatus::Baseline));
  CHECK_FALSE(isAccepted(RoundStatus::RolledBack));
}

TEST_CASE("transfer decisions read back from the names the records hold") {
  using kopt::campaign::TransferDecision;
  for (TransferDecision d : {TransferDecision::None, TransferDecision::AcceptAsReal,
                             TransferDecision::AcceptWithAsterisk, TransferDecision::RejectAsOverfit}) {
    CHECK((kopt::campaign::transferDecisionFromString(kopt::campaign::toString(d)) == d));
  }
  CHECK(std::string(kopt::campaign::toString(TransferDecision::AcceptWithAsterisk)) == "ACCEPT-with-asterisk");
  CHECK_FALSE(kopt::campaign::transferDecisionFromString("ACCEPT").has_value());
}

TEST_CASE("round verdicts: the ledger's spellings read back, and only ACCEPT/ACCEPT_WITH_NOTE accept without a person") {
  using kopt::campaign::RoundVerdict;
  for (RoundVerdict v : {RoundVerdict::Accept, RoundVerdict::AcceptWithNote, RoundVerdict::Rollback, RoundVerdict::Audit}) {
    CHECK((kopt::campaign::roundVerdictFromString(kopt::campaign::toString(v)) == v));
  }
  CHECK(std::string(kopt::campaign::toString(RoundVerdict::AcceptWithNote)) == "ACCEPT_WITH_NOTE");
  CHECK_FALSE(kopt::campaign::roundVerdictFromString("accept").has_value());
  CHECK(kopt::campaign::isAccepting(RoundVerdict::AcceptWithNote));
  CHECK_FALSE(kopt::campaign::isAccepting(RoundVerdict::Audit));
  CHECK(kopt::campaign::allowsAccept(RoundVerdict::Audit));
  CHECK_FALSE(kopt::campaign::allowsAccept(RoundVerdict::Rollback));
}
