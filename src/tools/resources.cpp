#include "tools/resources.h"

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tools/resources_scan.h"
#include "tools/resources_uri.h"
#include "util/json_text.h"

namespace kopt::tools {

namespace resources {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string campaignFileTitle(CampaignFile file) {
  switch (file) {
    case CampaignFile::Manifest: return "Manifest";
    case CampaignFile::State: return "State machine";
    case CampaignFile::Ledger: return "Ledger";
    case CampaignFile::Log: return "Optimize log";
    case CampaignFile::Trend: return "Performance trend";
    case CampaignFile::Report: return "Final report";
    case CampaignFile::MetricChart: return "Metric chart";
    case CampaignFile::Heatmap: return "Per-shape heatmap";
  }
  return {};
}

std::string roundFileTitle(RoundFile file) {
  switch (file) {
    case RoundFile::Summary: return "Summary";
    case RoundFile::Hypothesis: return "Hypothesis";
    case RoundFile::Decision: return "Decision";
  }
  return {};
}

// The phase recorded in state.json, when it has one; the state store owns the format, so this
// reads only the one field and shrugs at anything else.
std::string phaseOf(const fs::path& campaignDir) {
  const json state = util::readJsonFile(campaignDir / "state.json").value_or(json());
  if (state.is_object() && state.contains("phase") && state["phase"].is_string()) return state["phase"].get<std::string>();
  return {};
}

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::vector<std::string> topLevelArtifacts(const fs::path& campaignDir, int round) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(campaignDir / artifactsDir(round), fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::error_code fileEc;
    if (it->is_regular_file(fileEc) && !it->is_symlink(fileEc)) files.push_back(it->path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

json overview(const CampaignLocation& c) {
  json files = json::object();
  for (CampaignFile file : kCampaignFiles)
    if (isFile(c.dir / relativePath(file))) files[uriSuffix(file)] = campaignUri(c.name, file);
  json rounds = json::array();
  for (int n : roundNumbers(c.dir)) {
    json round{{"round", n}};
    for (RoundFile file : kRoundFiles)
      if (isFile(c.dir / relativePath(n, file))) round[uriSuffix(file)] = roundUri(c.name, n, file);
    json artifacts = json::array();
    for (const auto& a : topLevelArtifacts(c.dir, n)) artifacts.push_back(artifactUri(c.name, n, a));
    round["artifacts"] = artifacts;
    rounds.push_back(round);
  }
  json out{{"name", c.name}, {"dir", c.dir.string()}, {"uri", campaignUri(c.name)}, {"files", files}, {"rounds", rounds}};
  std::string phase = phaseOf(c.dir);
  if (!phase.empty()) out["phase"] = phase;
  return out;
}

mcp::ResourceContents jsonContents(const std::string& uri, const json& value) {
  mcp::ResourceContents contents;
  contents.uri = uri;
  contents.mimeType = "application/json";
  contents.text = value.dump(2, ' ', false, json::error_handler_t::replace);
  return contents;
}

std::optional<std::vector<mcp::ResourceContents>> one(std::optional<mcp::ResourceContents> contents) {
  if (!contents) return std::nullopt;
  return std::vector<mcp::ResourceContents>{std::move(*contents)};
}

}  // namespace

std::optional<std::vector<mcp::ResourceContents>> readCampaignResource(const fs::path& workspaceRoot,
                                                                       const std::string& uri, const ReadLimits& limits) {
  auto parsed = parseUri(uri);
  if (!parsed) return std::nullopt;
  if (parsed->kind == ParsedUri::Kind::CampaignList) {
    json list = json::array();
    for (const auto& c : discoverCampaigns(workspaceRoot)) {
      json item{{"name", c.name}, {"dir", c.dir.string()}, {"uri", campaignUri(c.name)}};
      std::string phase = phaseOf(c.dir);
      if (!phase.empty()) item["phase"] = phase;
      auto rounds = roundNumbers(c.dir);
      item["rounds"] = rounds.size();
      list.push_back(item);
    }
    return std::vector<mcp::ResourceContents>{
        jsonContents(uri, json{{"workspace", workspaceRoot.string()}, {"campaigns", list}})};
  }
  auto campaign = findCampaign(workspaceRoot, parsed->campaign);
  if (!campaign) return std::nullopt;
  switch (parsed->kind) {
    case ParsedUri::Kind::CampaignList: break;  // handled above
    case ParsedUri::Kind::Campaign: return std::vector<mcp::ResourceContents>{jsonContents(uri, overview(*campaign))};
    case ParsedUri::Kind::CampaignFile: {
      auto path = resolveInside(campaign->dir, relativePath(parsed->campaignFile));
      if (!path) return std::nullopt;
      return one(readFileContents(uri, *path, mimeType(parsed->campaignFile), limits));
    }
    case ParsedUri::Kind::RoundFile: {
      auto path = resolveInside(campaign->dir, relativePath(parsed->round, parsed->roundFile));
      if (!path) return std::nullopt;
      return one(readFileContents(uri, *path, mimeType(parsed->roundFile), limits));
    }
    case ParsedUri::Kind::Artifact: {
      // Resolved inside the round's artifacts directory, so neither "..", nor an absolute name,
      // nor a symlink planted there can reach the rest of the disk (or the rest of the campaign).
      std::error_code ec;
      fs::path artifacts = campaign->dir / artifactsDir(parsed->round);
      if (!fs::is_directory(artifacts, ec)) return std::nullopt;
      fs::path canonicalArtifacts = fs::canonical(artifacts, ec);
      if (ec) return std::nullopt;
      std::string campaignText = campaign->dir.generic_string();
      if (canonicalArtifacts.generic_string().compare(0, campaignText.size() + 1, campaignText + "/") != 0)
        return std::nullopt;  // the artifacts directory itself is a symlink out of the campaign
      auto path = resolveInside(canonicalArtifacts, parsed->artifact);
      if (!path) return std::nullopt;
      return one(readFileContents(uri, *path, {}, limits));
    }
  }
  return std::nullopt;
}

std::vector<mcp::ResourceSpec> listCampaignResources(const fs::path& workspaceRoot, const ReadLimits& limits) {
  std::vector<mcp::ResourceSpec> out;
  auto add = [&](std::string uri, std::string name, std::string title, std::string description, std::string mime) {
    if (out.size() >= kMaxListedResources) return;
    mcp::ResourceSpec spec;
    spec.uri = uri;
    spec.name = std::move(name);
    spec.title = std::move(title);
    spec.description = std::move(description);
    spec.mimeType = std::move(mime);
    spec.read = [workspaceRoot, uri, limits]() {
      auto contents = readCampaignResource(workspaceRoot, uri, limits);
      // Listed a moment ago, gone now (a rollback, a cleanup): an empty read, not a crash.
      return contents ? *contents : std::vector<mcp::ResourceContents>{};
    };
    out.push_back(std::move(spec));
  };
  for (const auto& c : discoverCampaigns(workspaceRoot)) {
    add(campaignUri(c.name), c.name, "Campaign " + c.name, "Overview: phase, files and rounds, with their URIs",
        "application/json");
    for (CampaignFile file : kCampaignFiles) {
      if (!isFile(c.dir / relativePath(file))) continue;
      add(campaignUri(c.name, file), c.name + "/" + uriSuffix(file), campaignFileTitle(file) + " of " + c.name,
          relativePath(file), mimeType(file));
    }
    for (int n : roundNumbers(c.dir)) {
      std::string roundName = c.name + "/round-" + std::to_string(n);
      for (RoundFile file : kRoundFiles) {
        if (!isFile(c.dir / relativePath(n, file))) continue;
        add(roundUri(c.name, n, file), roundName + "/" + uriSuffix(file),
            roundFileTitle(file) + " of round " + std::to_string(n) + " (" + c.name + ")", relativePath(n, file),
            mimeType(file));
      }
      auto artifacts = topLevelArtifacts(c.dir, n);
      if (artifacts.size() > kMaxListedArtifactsPerRound) artifacts.resize(kMaxListedArtifactsPerRound);
      for (const auto& a : artifacts)
        add(artifactUri(c.name, n, a), roundName + "/artifacts/" + a, a + " of round " + std::to_string(n),
            artifactsDir(n) + "/" + a, guessMimeType(a));
    }
  }
  return out;
}

}  // namespace resources

void registerCampaignResources(mcp::Registrar& registrar, const std::filesystem::path& workspaceRoot) {
  using namespace resources;
  namespace fs = std::filesystem;
  std::filesystem::path root = workspaceRoot.empty() ? std::filesystem::current_path() : workspaceRoot;

  mcp::ResourceSpec list;
  list.uri = campaignsUri();
  list.name = "campaigns";
  list.title = "Campaigns";
  list.description = "Every campaign found under the workspace (<repo>/.kopt/campaigns/*), with its phase and URI";
  list.mimeType = "application/json";
  list.read = [root]() { return *readCampaignResource(root, campaignsUri()); };
  registrar.addResource(std::move(list));

  registrar.addResourceLister([root]() { return listCampaignResources(root); });

  auto addTemplate = [&](std::string uriTemplate, std::string name, std::string title, std::string description,
                         std::string mime) {
    mcp::ResourceTemplateSpec spec;
    spec.uriTemplate = std::move(uriTemplate);
    spec.name = std::move(name);
    spec.title = std::move(title);
    spec.description = std::move(description);
    spec.mimeType = std::move(mime);
    spec.read = [root](const std::string& uri, const std::vector<std::pair<std::string, std::string>>&) {
      return readCampaignResource(root, uri);
    };
    registrar.addResourceTemplate(std::move(spec));
  };
  addTemplate("kopt://campaign/{name}", "campaign", "Campaign overview",
              "Phase, files and rounds of one campaign, with their URIs", "application/json");
  for (CampaignFile file : kCampaignFiles) {
    std::string name = "campaign-" + uriSuffix(file);
    std::replace(name.begin(), name.end(), '/', '-');
    addTemplate("kopt://campaign/{name}/" + uriSuffix(file), name, campaignFileTitle(file),
                relativePath(file) + " of a campaign", mimeType(file));
  }
  for (RoundFile file : kRoundFiles) {
    addTemplate("kopt://campaign/{name}/round/{n}/" + uriSuffix(file), "round-" + uriSuffix(file),
                "Round " + roundFileTitle(file), "rounds/round-N/" + fs::path(relativePath(1, file)).filename().string() + " of a campaign",
                mimeType(file));
  }
  addTemplate("kopt://campaign/{name}/round/{n}/artifacts/{file}", "round-artifact", "Round artifact",
              "A file under rounds/round-N/artifacts/ (benchmark.csv, build.log, test.log, ...); encode '/' as %2F",
              "");
}

}  // namespace kopt::tools
