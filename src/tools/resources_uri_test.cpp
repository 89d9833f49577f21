#include "tools/resources_uri.h"

#include <doctest/doctest.h>

using namespace kopt::tools::resources;

TEST_CASE("URIs round-trip through build and parse") {
  CHECK(campaignsUri() == "kopt://campaigns");
  CHECK(campaignUri("gemm_cpu_cpu_20260101", CampaignFile::MetricChart) ==
        "kopt://campaign/gemm_cpu_cpu_20260101/report/metric.svg");
  CHECK(roundUri("c", 12, RoundFile::Decision) == "kopt://campaign/c/round/12/decision");
  CHECK(artifactUri("c", 2, "runs/pair 1.csv") == "kopt://campaign/c/round/2/artifacts/runs%2Fpair%201.csv");

  for (CampaignFile file : kCampaignFiles) {
    auto p = parseUri(campaignUri("name with space", file));
    REQUIRE(p);
    CHECK((p->kind == ParsedUri::Kind::CampaignFile));
    CHECK((p->campaignFile == file));
    CHECK(p->campaign == "name with space");
  }
  auto a = parseUri(artifactUri("c", 2, "runs/pair-1.csv"));
  REQUIRE(a);
  CHECK((a->kind == ParsedUri::Kind::Artifact));
  CHECK(a->round == 2);
  CHECK(a->artifact == "runs/pair-1.csv");
  auto r = parseUri("kopt://campaign/c/round/3/summary");
  REQUIRE(r);
  CHECK((r->roundFile == RoundFile::Summary));
  auto o = parseUri("kopt://campaign/c");
  REQUIRE(o);
  CHECK((o->kind == ParsedUri::Kind::Campaign));
}

TEST_CASE("malformed or hostile URIs are rejected with a reason") {
  std::string error;
  for (const char* bad :
       {"http://x", "kopt://campaign/", "kopt://campaign/%2E%2E/manifest", "kopt://campaign/../manifest",
        "kopt://campaign/a%2Fb/manifest", "kopt://campaign/c/round/0/summary", "kopt://campaign/c/round/01/summary",
        "kopt://campaign/c/round/-1/summary", "kopt://campaign/c/round/x/summary", "kopt://campaign/c/round/2",
        "kopt://campaign/c/round/2/artifacts/", "kopt://campaign/c/round/2/artifacts/a/b",
        "kopt://campaign/c/round/2/artifacts/%zz", "kopt://campaign/c/round/2/artifacts/a%00b",
        "kopt://campaign/c/secrets", "kopt://campaign/c/manifest?x=1", "kopt://campaigns/x"}) {
    CAPTURE(bad);
    CHECK_FALSE(parseUri(bad, &error));
    CHECK_FALSE(error.empty());
  }
}

TEST_CASE("percent encoding keeps unreserved characters and escapes the rest") {
  CHECK(percentEncode("a-b_c.d~e") == "a-b_c.d~e");
  CHECK(percentEncode("a/b c") == "a%2Fb%20c");
  CHECK(percentDecode("a%2Fb%20c") == std::optional<std::string>("a/b c"));
  CHECK_FALSE(percentDecode("%4"));
  CHECK_FALSE(percentDecode("%"));
}
