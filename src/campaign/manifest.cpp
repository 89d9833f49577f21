// Enumerations, derived values, command parsing and whole-manifest validation. YAML reading is in
// manifest_parse.cpp, YAML writing in manifest_yaml.cpp.
#include "campaign/manifest.h"

#include <regex>

#include "util/name_table.h"
#include "util/text.h"

namespace kopt::campaign {

namespace {

constexpr util::EnumName<Backend> kBackends[] = {
    {Backend::Triton, "TRITON"}, {Backend::CK, "CK"},     {Backend::HipBlasLt, "HIPBLASLT"},
    {Backend::Turbo, "TURBO"},   {Backend::Hip, "HIP"},   {Backend::Cuda, "CUDA"},
    {Backend::Cpu, "CPU"},
};

struct GpuProduct {
  const char* product;
  const char* arch;
};
constexpr GpuProduct kProducts[] = {
    {"MI300X", "gfx942"}, {"MI300A", "gfx942"}, {"MI325X", "gfx942"}, {"MI308X", "gfx942"},
    {"MI350X", "gfx950"}, {"MI355X", "gfx950"}, {"H100", "sm_90"},    {"H200", "sm_90"},
    {"GH200", "sm_90"},   {"H800", "sm_90"},    {"B200", "sm_100"},   {"GB200", "sm_100"},
    {"A100", "sm_80"},    {"L40S", "sm_89"},
};

const std::regex& archPattern() {
  static const std::regex re(R"((gfx[0-9a-f]{3,4}|sm_[0-9]{2,3}a?|cpu))");
  return re;
}

}  // namespace

const char* toString(Backend b) { return util::nameIn(kBackends, b, "UNKNOWN"); }

std::optional<Backend> backendFromString(std::string_view text) {
  return util::valueNamed(kBackends, util::toUpper(util::trim(text)));
}

std::string backendNames() {
  std::string names;
  for (const auto& b : kBackends) names += (names.empty() ? "" : ", ") + std::string(b.name);
  return names;
}

std::string backendLower(Backend b) { return util::toLower(toString(b)); }

const char* toString(Language l) {
  switch (l) {
    case Language::Triton: return "Triton";
    case Language::Hip: return "HIP";
    case Language::Cuda: return "CUDA";
    case Language::Cpp: return "C++";
  }
  return "UNKNOWN";
}

Language languageFor(Backend b) {
  switch (b) {
    case Backend::Triton: return Language::Triton;
    case Backend::CK:
    case Backend::HipBlasLt:
    case Backend::Turbo:
    case Backend::Hip: return Language::Hip;
    case Backend::Cuda: return Language::Cuda;
    case Backend::Cpu: return Language::Cpp;
  }
  return Language::Cpp;
}

bool isCompiled(Backend b) { return b != Backend::Triton; }

const char* toString(ExecutionMode m) { return m == ExecutionMode::Repo ? "repo" : "workspace"; }

std::optional<std::string> archForGpu(std::string_view productOrArch) {
  std::string text = util::trim(productOrArch);
  std::string upper = util::toUpper(text);
  // "AMD Instinct MI300X", "NVIDIA H100 80GB HBM3": match the product token anywhere.
  for (const auto& p : kProducts) {
    std::string prod = p.product;
    auto pos = upper.find(prod);
    while (pos != std::string::npos) {
      bool leftOk = pos == 0 || !std::isalnum(static_cast<unsigned char>(upper[pos - 1]));
      std::size_t end = pos + prod.size();
      bool rightOk = end == upper.size() || !std::isalnum(static_cast<unsigned char>(upper[end]));
      if (leftOk && rightOk) return std::string(p.arch);
      pos = upper.find(prod, pos + 1);
    }
  }
  std::string lower = util::toLower(text);
  // An arch name is at most 7 characters (gfx1100, sm_100a); a longer text cannot be one,
  // and std::regex is kept away from long input (util/text_scanner.h says why).
  if (lower.size() <= 7 && std::regex_match(lower, archPattern())) return lower;
  return std::nullopt;
}

PrimaryMetric primaryMetricFromString(std::string_view text) {
  std::string t = util::trim(text);
  std::string key = util::toLower(t);
  key = util::replaceAll(key, "_", " ");
  key = util::replaceAll(key, "gbps", "gb/s");
  if (key == "forward tflops") return {MetricKind::ForwardTflops, "Forward TFLOPS"};
  if (key == "combined step tflops") return {MetricKind::CombinedStepTflops, "Combined Step TFLOPS"};
  if (key == "forward gb/s") return {MetricKind::ForwardGbps, "Forward GB/s"};
  if (key == "backward gb/s") return {MetricKind::BackwardGbps, "Backward GB/s"};
  return {MetricKind::Custom, t};
}

const char* manifestName(SchemaKind k) {
  switch (k) {
    case SchemaKind::Gemm: return "gemm";
    case SchemaKind::MemoryBound: return "memory";
    case SchemaKind::Custom: return "custom";
  }
  return "unknown";
}

std::string toString(const FieldError& e) {
  std::string s = e.field + ": " + e.message;
  if (!e.fix.empty()) s += " (fix: " + e.fix + ")";
  return s;
}

// ---- commands --------------------------------------------------------------------------------

namespace {

struct PlaceholderSpelling {
  const char* spelling;
  const char* name;
};
constexpr PlaceholderSpelling kPlaceholderSpellings[] = {
    {"${CAMPAIGN_DIR}", "CAMPAIGN_DIR"}, {"$CAMPAIGN_DIR", "CAMPAIGN_DIR"},
    {"<campaign_dir>", "CAMPAIGN_DIR"},  {"${REPO_DIR}", "REPO_DIR"},
    {"$REPO_DIR", "REPO_DIR"},           {"${TARGET_GPU}", "TARGET_GPU"},
    {"$TARGET_GPU", "TARGET_GPU"},
};

std::string sentinel(const std::string& name) { return "@@KOPT_PLACEHOLDER_" + name + "@@"; }

std::string restoreSentinels(std::string word) {
  for (const char* name : {"CAMPAIGN_DIR", "REPO_DIR", "TARGET_GPU"}) {
    word = util::replaceAll(word, sentinel(name), std::string("${") + name + "}");
  }
  return word;
}

}  // namespace

std::variant<Command, std::string> parseCommand(const std::string& text) {
  std::string protectedText = text;
  // Longest spellings first so "${CAMPAIGN_DIR}" is not half-eaten by "$CAMPAIGN_DIR".
  for (const auto& p : kPlaceholderSpellings) {
    protectedText = util::replaceAll(protectedText, p.spelling, sentinel(p.name));
  }
  auto parsed = exec::parseCommandLine(protectedText);
  if (auto* err = std::get_if<exec::CommandParseError>(&parsed)) return err->message;
  Command c;
  c.text = text;
  c.parsed = std::get<exec::ParsedCommand>(parsed);
  for (auto& word : c.parsed.argv) word = restoreSentinels(word);
  for (auto& kv : c.parsed.env) kv.second = restoreSentinels(kv.second);
  if (c.parsed.argv.empty()) return std::string("the command has no program to run");
  return c;
}

exec::ParsedCommand expandPlaceholders(const Command& c, const PlaceholderValues& values) {
  auto fill = [&](std::string s) {
    s = util::replaceAll(s, "${CAMPAIGN_DIR}", values.campaignDir);
    s = util::replaceAll(s, "${REPO_DIR}", values.repoDir);
    s = util::replaceAll(s, "${TARGET_GPU}", values.targetGpu);
    return s;
  };
  exec::ParsedCommand out = c.parsed;
  for (auto& word : out.argv) word = fill(word);
  for (auto& kv : out.env) kv.second = fill(kv.second);
  return out;
}

std::optional<std::string> effectiveBranch(const Manifest& m, const std::string& campaignName) {
  switch (m.gitBranch.kind) {
    case GitBranch::Kind::Auto: return "optimize/" + campaignName;
    case GitBranch::Kind::None: return std::nullopt;
    case GitBranch::Kind::Named: return m.gitBranch.name;
  }
  return std::nullopt;
}

}  // namespace kopt::campaign
