#pragma once
// The kopt:// URI scheme for campaign records (docs/resources.md), in one place: the resource
// adapters parse with it, and the engine builds the URIs it announces with
// Registrar::notifyResourceUpdated from it, so the two can never disagree on a spelling.
//
//   kopt://campaigns                                      JSON list of the campaigns found
//   kopt://campaign/{name}                                JSON overview of one campaign
//   kopt://campaign/{name}/manifest                       manifest.yaml
//   kopt://campaign/{name}/state                          state.json
//   kopt://campaign/{name}/ledger                         ledger.jsonl
//   kopt://campaign/{name}/log                            logs/optimize.md
//   kopt://campaign/{name}/trend                          logs/performance_trend.md
//   kopt://campaign/{name}/report                         report.md
//   kopt://campaign/{name}/report/metric.svg              report-metric.svg
//   kopt://campaign/{name}/report/heatmap.svg             report-heatmap.svg
//   kopt://campaign/{name}/round/{n}/summary              rounds/round-N/summary.md
//   kopt://campaign/{name}/round/{n}/hypothesis           rounds/round-N/hypothesis.json
//   kopt://campaign/{name}/round/{n}/decision             rounds/round-N/decision.json
//   kopt://campaign/{name}/round/{n}/artifacts/{file}     rounds/round-N/artifacts/<file>
// {name} and {file} are percent-encoded (RFC 3986); a {file} in a subfolder encodes its '/' as %2F.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::tools::resources {

enum class CampaignFile { Manifest, State, Ledger, Log, Trend, Report, MetricChart, Heatmap };
enum class RoundFile { Summary, Hypothesis, Decision };

inline constexpr CampaignFile kCampaignFiles[] = {CampaignFile::Manifest, CampaignFile::State,  CampaignFile::Ledger,
                                                  CampaignFile::Log,      CampaignFile::Trend,  CampaignFile::Report,
                                                  CampaignFile::MetricChart, CampaignFile::Heatmap};
inline constexpr RoundFile kRoundFiles[] = {RoundFile::Summary, RoundFile::Hypothesis, RoundFile::Decision};

// Path inside the campaign directory, '/'-separated.
std::string relativePath(CampaignFile file);
std::string relativePath(int round, RoundFile file);
std::string artifactsDir(int round);  // "rounds/round-N/artifacts"
// The URI suffix after kopt://campaign/{name}/ ("manifest", "report/metric.svg", "round/{n}/summary").
std::string uriSuffix(CampaignFile file);
std::string uriSuffix(RoundFile file);
std::string mimeType(CampaignFile file);
std::string mimeType(RoundFile file);

std::string campaignsUri();
std::string campaignUri(const std::string& name);
std::string campaignUri(const std::string& name, CampaignFile file);
std::string roundUri(const std::string& name, int round, RoundFile file);
// `file` relative to the round's artifacts directory ("benchmark.csv", "runs/pair-1/best.csv").
std::string artifactUri(const std::string& name, int round, const std::string& file);

struct ParsedUri {
  enum class Kind { CampaignList, Campaign, CampaignFile, RoundFile, Artifact } kind = Kind::CampaignList;
  std::string campaign;  // decoded
  CampaignFile campaignFile = CampaignFile::Manifest;
  int round = 0;
  RoundFile roundFile = RoundFile::Summary;
  std::string artifact;  // decoded, relative to the artifacts directory
};

// nullopt when `uri` is not a kopt:// URI of the scheme above; `error` says why.
std::optional<ParsedUri> parseUri(std::string_view uri, std::string* error = nullptr);

// The URIs a successful call of `tool` (a catalogue tool name) changes, per docs/resources.md's
// subscription table, for the adapter to pass to Registrar::notifyResourceUpdated. `round` is the
// round the call worked on (0 when none). Unknown and read-only tools change nothing.
std::vector<std::string> urisChangedBy(std::string_view tool, const std::string& campaign, int round);

std::string percentEncode(std::string_view segment);  // unreserved characters kept, the rest %XX
std::optional<std::string> percentDecode(std::string_view segment);  // nullopt on a bad escape or NUL

}  // namespace kopt::tools::resources
