#include "tools/resources_uri.h"

#include <cctype>

namespace kopt::tools::resources {

namespace {

constexpr std::string_view kScheme = "kopt://";
constexpr int kMaxRound = 1000000;

bool fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return false;
}

std::optional<int> parseRound(std::string_view text) {
  if (text.empty() || text.size() > 7) return std::nullopt;
  int n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n < 1 || n > kMaxRound || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  return n;
}

}  // namespace

std::string relativePath(CampaignFile file) {
  switch (file) {
    case CampaignFile::Manifest: return "manifest.yaml";
    case CampaignFile::State: return "state.json";
    case CampaignFile::Ledger: return "ledger.jsonl";
    case CampaignFile::Log: return "logs/optimize.md";
    case CampaignFile::Trend: return "logs/performance_trend.md";
    case CampaignFile::Report: return "report.md";
    case CampaignFile::MetricChart: return "report-metric.svg";
    case CampaignFile::Heatmap: return "report-heatmap.svg";
  }
  return {};
}

std::string relativePath(int round, RoundFile file) {
  std::string dir = "rounds/round-" + std::to_string(round) + "/";
  switch (file) {
    case RoundFile::Summary: return dir + "summary.md";
    case RoundFile::Hypothesis: return dir + "hypothesis.json";
    case RoundFile::Decision: return dir + "decision.json";
  }
  return {};
}

std::string artifactsDir(int round) { return "rounds/round-" + std::to_string(round) + "/artifacts"; }

std::string uriSuffix(CampaignFile file) {
  switch (file) {
    case CampaignFile::Manifest: return "manifest";
    case CampaignFile::State: return "state";
    case CampaignFile::Ledger: return "ledger";
    case CampaignFile::Log: return "log";
    case CampaignFile::Trend: return "trend";
    case CampaignFile::Report: return "report";
    case CampaignFile::MetricChart: return "report/metric.svg";
    case CampaignFile::Heatmap: return "report/heatmap.svg";
  }
  return {};
}

std::string uriSuffix(RoundFile file) {
  switch (file) {
    case RoundFile::Summary: return "summary";
    case RoundFile::Hypothesis: return "hypothesis";
    case RoundFile::Decision: return "decision";
  }
  return {};
}

std::string mimeType(CampaignFile file) {
  switch (file) {
    case CampaignFile::Manifest: return "application/yaml";
    case CampaignFile::State: return "application/json";
    case CampaignFile::Ledger: return "application/jsonl";
    case CampaignFile::Log:
    case CampaignFile::Trend:
    case CampaignFile::Report: return "text/markdown";
    case CampaignFile::MetricChart:
    case CampaignFile::Heatmap: return "image/svg+xml";
  }
  return "text/plain";
}

std::string mimeType(RoundFile file) { return file == RoundFile::Summary ? "text/markdown" : "application/json"; }

std::string campaignsUri() { return "kopt://campaigns"; }
std::string campaignUri(const std::string& name) { return "kopt://campaign/" + percentEncode(name); }
std::string campaignUri(const std::string& name, CampaignFile file) { return campaignUri(name) + "/" + uriSuffix(file); }
std::string roundUri(const std::string& name, int round, RoundFile file) {
  return campaignUri(name) + "/round/" + std::to_string(round) + "/" + uriSuffix(file);
}
std::string artifactUri(const std::string& name, int round, const std::string& file) {
  return campaignUri(name) + "/round/" + std::to_string(round) + "/artifacts/" + percentEncode(file);
}

std::vector<std::string> urisChangedBy(std::string_view tool, const std::string& campaign, int round) {
  using F = CampaignFile;
  std::vector<std::string> uris;
  auto file = [&](F f) { uris.push_back(campaignUri(campaign, f)); };
  auto roundFile = [&](RoundFile f) {
    if (round > 0) uris.push_back(roundUri(campaign, round, f));
  };
  auto artifact = [&](const char* name) {
    if (round > 0) uris.push_back(artifactUri(campaign, round, name));
  };
  if (tool == "define_target" || tool == "confirm_target") {
    file(F::Manifest), file(F::State), file(F::Ledger);
    uris.push_back(campaignsUri());
  } else if (tool == "prepare_environment" || tool == "read_tips") {
    file(F::Manifest), file(F::State), file(F::Ledger);
  } else if (tool == "run_baseline") {
    file(F::State), file(F::Ledger), file(F::Log), file(F::Trend);
    round = round > 0 ? round : 1;
    roundFile(RoundFile::Summary), roundFile(RoundFile::Decision);
  } else if (tool == "begin_round") {
    file(F::State), file(F::Ledger);
    roundFile(RoundFile::Hypothesis);
  } else if (tool == "rebuild_kernel") {
    artifact("build.log");
  } else if (tool == "run_tests") {
    artifact("test.log");
  } else if (tool == "run_quick_bench" || tool == "validate_round") {
    artifact("benchmark.csv");
    file(F::State), file(F::Ledger);
  } else if (tool == "accept_or_revert") {
    file(F::State), file(F::Ledger), file(F::Log), file(F::Trend);
    roundFile(RoundFile::Summary), roundFile(RoundFile::Decision);
  } else if (tool == "termination_check" || tool == "final_acceptance") {
    file(F::State), file(F::Ledger), file(F::Log);
  } else if (tool == "report") {
    file(F::Report), file(F::MetricChart), file(F::Heatmap), file(F::Log), file(F::State), file(F::Ledger);
  }
  // The overview lists files and rounds, so it changes with any of them.
  if (!uris.empty()) uris.insert(uris.begin(), campaignUri(campaign));
  return uris;
}

std::string percentEncode(std::string_view segment) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : segment) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::optional<std::string> percentDecode(std::string_view segment) {
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < segment.size(); ++i) {
    char c = segment[i];
    if (c == '%') {
      if (i + 2 >= segment.size()) return std::nullopt;  // needs two hex digits after '%'
      int hi = value(segment[i + 1]), lo = value(segment[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    if (c == '\0') return std::nullopt;
    out += c;
  }
  return out;
}

std::optional<ParsedUri> parseUri(std::string_view uri, std::string* error) {
  ParsedUri parsed;
  if (uri.substr(0, kScheme.size()) != kScheme) {
    fail(error, "not a kopt:// URI");
    return std::nullopt;
  }
  std::string_view rest = uri.substr(kScheme.size());
  if (rest.find_first_of("?#") != std::string_view::npos) {
    fail(error, "kopt:// URIs take no query or fragment");
    return std::nullopt;
  }
  if (rest == "campaigns") {
    parsed.kind = ParsedUri::Kind::CampaignList;
    return parsed;
  }
  constexpr std::string_view kCampaign = "campaign/";
  if (rest.substr(0, kCampaign.size()) != kCampaign) {
    fail(error, "expected kopt://campaigns or kopt://campaign/{name}/...");
    return std::nullopt;
  }
  rest.remove_prefix(kCampaign.size());
  size_t slash = rest.find('/');
  std::string_view nameSegment = rest.substr(0, slash);
  auto name = percentDecode(nameSegment);
  if (nameSegment.empty() || !name || name->find('/') != std::string::npos || *name == "." || *name == "..") {
    fail(error, "bad campaign name segment");
    return std::nullopt;
  }
  parsed.campaign = *name;
  if (slash == std::string_view::npos) {
    parsed.kind = ParsedUri::Kind::Campaign;
    return parsed;
  }
  std::string_view tail = rest.substr(slash + 1);
  for (CampaignFile file : kCampaignFiles) {
    if (tail == uriSuffix(file)) {
      parsed.kind = ParsedUri::Kind::CampaignFile;
      parsed.campaignFile = file;
      return parsed;
    }
  }
  constexpr std::string_view kRound = "round/";
  if (tail.substr(0, kRound.size()) != kRound) {
    fail(error, "unknown campaign resource '" + std::string(tail) + "'");
    return std::nullopt;
  }
  tail.remove_prefix(kRound.size());
  size_t roundEnd = tail.find('/');
  auto round = parseRound(tail.substr(0, roundEnd));
  if (!round || roundEnd == std::string_view::npos) {
    fail(error, "expected round/{n}/... with n a round number (1, 2, ...)");
    return std::nullopt;
  }
  parsed.round = *round;
  std::string_view what = tail.substr(roundEnd + 1);
  for (RoundFile file : kRoundFiles) {
    if (what == uriSuffix(file)) {
      parsed.kind = ParsedUri::Kind::RoundFile;
      parsed.roundFile = file;
      return parsed;
    }
  }
  constexpr std::string_view kArtifacts = "artifacts/";
  if (what.substr(0, kArtifacts.size()) == kArtifacts && what.size() > kArtifacts.size()) {
    std::string_view fileSegment = what.substr(kArtifacts.size());
    auto file = percentDecode(fileSegment);
    if (!file || fileSegment.find('/') != std::string_view::npos) {
      fail(error, "bad artifact name: encode '/' inside it as %2F");
      return std::nullopt;
    }
    parsed.kind = ParsedUri::Kind::Artifact;
    parsed.artifact = *file;
    return parsed;
  }
  fail(error, "unknown round resource '" + std::string(what) + "'");
  return std::nullopt;
}

}  // namespace kopt::tools::resources
