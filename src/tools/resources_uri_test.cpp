#include "tools/resources_uri.h"

#include <doctest/doctest.h>

#include <algorithm>

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

TEST_CASE("urisChangedBy follows the subscription table") {
  auto has = [](const std::vector<std::string>& uris, const std::string& uri) {
    return std::find(uris.begin(), uris.end(), uri) != uris.end();
  };
  auto accept = urisChangedBy("accept_or_revert", "c", 3);
  CHECK(accept.front() == "kopt://campaign/c");
  for (const char* uri : {"kopt://campaign/c/trend", "kopt://campaign/c/log", "kopt://campaign/c/state",
                          "kopt://campaign/c/round/3/summary", "kopt://campaign/c/round/3/decision"})
    CHECK(has(accept, uri));
  CHECK(has(urisChangedBy("define_target", "c", 0), "kopt://campaigns"));
  CHECK(has(urisChangedBy("run_baseline", "c", 0), "kopt://campaign/c/round/1/summary"));
  CHECK(has(urisChangedBy("validate_round", "c", 4), "kopt://campaign/c/round/4/artifacts/benchmark.csv"));
  CHECK(has(urisChangedBy("report", "c", 0), "kopt://campaign/c/report/heatmap.svg"));
  CHECK(has(urisChangedBy("rebuild_kernel", "c", 2), "kopt://campaign/c/round/2/artifacts/build.log"));
  CHECK(urisChangedBy("rebuild_kernel", "c", 0).empty());  // no round, no log to name
  CHECK(urisChangedBy("campaign_status", "c", 2).empty());
  CHECK(urisChangedBy("query_trend", "c", 2).empty());
  // Every URI it names parses back.
  for (const char* tool : {"define_target", "run_baseline", "begin_round", "run_tests", "validate_round",
                           "accept_or_revert", "final_acceptance", "report"})
    for (const auto& uri : urisChangedBy(tool, "gemm x", 2)) CHECK_MESSAGE(parseUri(uri), uri);
}
