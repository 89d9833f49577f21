#include "tools/resources.h"

#include <doctest/doctest.h>

#include "mcp/registry.h"
#include "tools/resources_scan.h"
#include "tools/resources_test_support.h"
#include "tools/resources_uri.h"

using namespace kopt::tools;
using namespace kopt::tools::resources;
using kopt::tools::testing::TempWorkspace;
namespace fs = std::filesystem;

namespace {

std::string textOf(const fs::path& root, const std::string& uri) {
  auto contents = readCampaignResource(root, uri);
  REQUIRE_MESSAGE(contents, uri);
  REQUIRE(contents->size() == 1);
  REQUIRE((*contents)[0].text);
  return *(*contents)[0].text;
}

}  // namespace

TEST_CASE("campaigns under <workspace>/*/.kopt/campaigns and <workspace>/.kopt/campaigns are found") {
  TempWorkspace ws;
  ws.campaign("b_campaign");
  ws.campaign("a_campaign", "");
  fs::create_directories(ws.root / "other" / ".kopt" / "campaigns" / "not_a_campaign");  // no marker file
  auto found = discoverCampaigns(ws.root);
  REQUIRE(found.size() == 2);
  CHECK(found[0].name == "a_campaign");
  CHECK(found[1].name == "b_campaign");
  CHECK(found[1].dir == ws.root / "repo" / ".kopt" / "campaigns" / "b_campaign");
  CHECK(roundNumbers(found[1].dir) == std::vector<int>{1, 2});

  SUBCASE("a remembered directory elsewhere is found too") {
    TempWorkspace elsewhere;
    auto dir = elsewhere.root / "custom";
    TempWorkspace::write(dir / "manifest.yaml", "x: 1\n");
    rememberCampaignDir(dir);
    CHECK(findCampaign(ws.root, "custom"));
    forgetRememberedCampaignDirs();
    CHECK_FALSE(findCampaign(ws.root, "custom"));
  }
}

TEST_CASE("records read as text with their MIME types; the list and overview give their URIs") {
  TempWorkspace ws;
  ws.campaign("c1");
  CHECK(textOf(ws.root, "kopt://campaign/c1/manifest").find("target_op: gemm") != std::string::npos);
  CHECK(textOf(ws.root, "kopt://campaign/c1/trend").find("BASELINE") != std::string::npos);
  CHECK(textOf(ws.root, "kopt://campaign/c1/round/1/summary") == "# Round 1\nbaseline\n");
  CHECK(textOf(ws.root, "kopt://campaign/c1/round/1/artifacts/benchmark.csv") == "label,Check\nM1,PASS\n");
  CHECK(textOf(ws.root, "kopt://campaign/c1/round/1/artifacts/runs%2Fpair-1.csv") == "label,Check\nM1,PASS\n");
  auto decision = readCampaignResource(ws.root, "kopt://campaign/c1/round/1/decision");
  CHECK((*decision)[0].mimeType == "application/json");

  auto list = nlohmann::json::parse(textOf(ws.root, "kopt://campaigns"));
  REQUIRE(list["campaigns"].size() == 1);
  CHECK(list["campaigns"][0]["phase"] == "ANALYZE");
  CHECK(list["campaigns"][0]["uri"] == "kopt://campaign/c1");
  auto overview = nlohmann::json::parse(textOf(ws.root, "kopt://campaign/c1"));
  CHECK(overview["files"]["manifest"] == "kopt://campaign/c1/manifest");
  CHECK_FALSE(overview["files"].contains("report"));  // not written yet
  CHECK(overview["rounds"][0]["artifacts"][0] == "kopt://campaign/c1/round/1/artifacts/benchmark.csv");
}

TEST_CASE("missing campaigns, rounds and files are not found") {
  TempWorkspace ws;
  ws.campaign("c1");
  for (const char* uri : {"kopt://campaign/nope/manifest", "kopt://campaign/c1/report", "kopt://campaign/c1/round/9/summary",
                          "kopt://campaign/c1/round/1/artifacts/missing.csv", "kopt://campaign/c1/round/1/artifacts/runs"}) {
    CAPTURE(uri);
    CHECK_FALSE(readCampaignResource(ws.root, uri));
  }
}

TEST_CASE("paths cannot leave the campaign directory: '..', absolute names, symlinks") {
  TempWorkspace ws;
  auto dir = ws.campaign("c1");
  TempWorkspace::write(ws.root / "secret.txt", "top secret\n");
  TempWorkspace::write(dir / "inside.txt", "campaign file\n");
  for (const char* uri : {"kopt://campaign/c1/round/1/artifacts/..%2F..%2F..%2F..%2F..%2Fsecret.txt",
                          "kopt://campaign/c1/round/1/artifacts/%2Fetc%2Fpasswd",
                          "kopt://campaign/c1/round/1/artifacts/..%2F..%2F..%2Finside.txt"}) {
    CAPTURE(uri);
    CHECK_FALSE(readCampaignResource(ws.root, uri));
  }
  fs::create_symlink(ws.root / "secret.txt", dir / "rounds" / "round-1" / "artifacts" / "link.txt");
  CHECK_FALSE(readCampaignResource(ws.root, "kopt://campaign/c1/round/1/artifacts/link.txt"));
  // A symlinked artifacts directory pointing out of the campaign is refused as a whole.
  fs::create_directories(dir / "rounds" / "round-2");
  fs::create_directory_symlink(ws.root, dir / "rounds" / "round-2" / "artifacts");
  CHECK_FALSE(readCampaignResource(ws.root, "kopt://campaign/c1/round/2/artifacts/secret.txt"));
  // The manifest replaced by a symlink out of the campaign.
  fs::remove(dir / "manifest.yaml");
  fs::create_symlink(ws.root / "secret.txt", dir / "manifest.yaml");
  CHECK_FALSE(readCampaignResource(ws.root, "kopt://campaign/c1/manifest"));
}

TEST_CASE("big text is cut with a marker; logs keep their end; binary is a blob") {
  TempWorkspace ws;
  auto dir = ws.campaign("c1");
  auto artifacts = dir / "rounds" / "round-1" / "artifacts";
  std::string big(5000, 'x');
  TempWorkspace::write(artifacts / "big.csv", big + "END");
  TempWorkspace::write(artifacts / "build.log", big + "error: the end\n");
  TempWorkspace::write(artifacts / "blob.bin", std::string("\x89PNG\0\x01\x02", 7));
  ReadLimits limits;
  limits.maxTextBytes = 1000;
  auto csv = readCampaignResource(ws.root, "kopt://campaign/c1/round/1/artifacts/big.csv", limits);
  REQUIRE(csv);
  CHECK((*csv)[0].text->find("[kopt: truncated big.csv: bytes 0-1000 of 5003 shown; the whole file is") != std::string::npos);
  CHECK((*csv)[0].text->find("END") == std::string::npos);
  auto log = readCampaignResource(ws.root, "kopt://campaign/c1/round/1/artifacts/build.log", limits);
  REQUIRE(log);
  CHECK((*log)[0].text->rfind("[kopt: truncated build.log: last 1000 of 5015 bytes shown", 0) == 0);
  CHECK((*log)[0].text->find("error: the end\n") != std::string::npos);
  auto bin = readCampaignResource(ws.root, "kopt://campaign/c1/round/1/artifacts/blob.bin", limits);
  REQUIRE(bin);
  CHECK_FALSE((*bin)[0].text);
  CHECK((*bin)[0].blobBase64 == std::optional<std::string>("iVBORwABAg=="));
}

TEST_CASE("through the MCP registry: list, templates, read and not-found") {
  TempWorkspace ws;
  ws.campaign("c1");
  kopt::mcp::Registry registry;
  registerCampaignResources(registry, ws.root);

  auto listed = std::get<nlohmann::json>(registry.listResources(nlohmann::json::object()));
  std::vector<std::string> uris;
  for (const auto& r : listed["resources"]) uris.push_back(r["uri"]);
  for (const char* expected : {"kopt://campaigns", "kopt://campaign/c1", "kopt://campaign/c1/manifest",
                               "kopt://campaign/c1/state", "kopt://campaign/c1/trend", "kopt://campaign/c1/round/1/summary",
                               "kopt://campaign/c1/round/1/decision", "kopt://campaign/c1/round/1/artifacts/benchmark.csv",
                               "kopt://campaign/c1/round/2/summary"}) {
    CAPTURE(expected);
    CHECK(std::find(uris.begin(), uris.end(), expected) != uris.end());
  }
  CHECK(std::find(uris.begin(), uris.end(), "kopt://campaign/c1/report") == uris.end());

  auto templates = std::get<nlohmann::json>(registry.listResourceTemplates(nlohmann::json::object()));
  std::vector<std::string> patterns;
  for (const auto& t : templates["resourceTemplates"]) patterns.push_back(t["uriTemplate"]);
  CHECK(std::find(patterns.begin(), patterns.end(), "kopt://campaign/{name}/round/{n}/artifacts/{file}") != patterns.end());
  CHECK(std::find(patterns.begin(), patterns.end(), "kopt://campaign/{name}/report/metric.svg") != patterns.end());

  auto read = registry.readResource({{"uri", "kopt://campaign/c1/round/1/artifacts/runs%2Fpair-1.csv"}});
  REQUIRE(std::holds_alternative<nlohmann::json>(read));
  CHECK(std::get<nlohmann::json>(read)["contents"][0]["text"] == "label,Check\nM1,PASS\n");
  auto missing = registry.readResource({{"uri", "kopt://campaign/c1/round/1/artifacts/..%2F..%2F..%2Fmanifest.yaml"}});
  CHECK(std::holds_alternative<kopt::mcp::rpc::Error>(missing));

  SUBCASE("a report written later shows up without re-registering") {
    TempWorkspace::write(ws.root / "repo" / ".kopt" / "campaigns" / "c1" / "report-metric.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
    auto again = std::get<nlohmann::json>(registry.listResources(nlohmann::json::object()));
    bool found = false;
    for (const auto& r : again["resources"]) found = found || r["uri"] == "kopt://campaign/c1/report/metric.svg";
    CHECK(found);
    auto svg = std::get<nlohmann::json>(registry.readResource({{"uri", "kopt://campaign/c1/report/metric.svg"}}));
    CHECK(svg["contents"][0]["mimeType"] == "image/svg+xml");
  }
}
