// DEFINE_TARGET -> PREPARE_ENVIRONMENT -> READ_HISTORICAL_TIPS: define_target, confirm_target,
// prepare_environment, read_tips.
#include <yaml-cpp/yaml.h>

#include <sstream>
#include <system_error>

#include "campaign/campaign_name.h"
#include "campaign/engine.h"
#include "campaign/engine_session.h"
#include "campaign/engine_steps.h"
#include "campaign/lineage/git_repo.h"
#include "campaign/measurement.h"
#include "campaign/path_guard.h"
#include "campaign/tips_store.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using detail::OpenCampaign;
using json = nlohmann::json;

CampaignEngine::CampaignEngine(EngineOptions options) : options_(std::move(options)) {
  if (options_.workspaceRoot.empty()) options_.workspaceRoot = fs::current_path();
  std::error_code ec;
  options_.workspaceRoot = fs::weakly_canonical(options_.workspaceRoot, ec);
  if (options_.defaultTipsRoot.empty()) options_.defaultTipsRoot = options_.workspaceRoot / ".kopt" / "tips";
  if (!options_.seedSource) options_.seedSource = secretSeed;
  if (!options_.clock) options_.clock = [] { return std::chrono::system_clock::now(); };
}

CampaignEngine::~CampaignEngine() = default;

using detail::phaseRefusal;

namespace {

// A path that did not resolve, as define_target's answer: the refusal names this tool.
Outcome<DefineTargetResult> asDefineTargetError(const Outcome<fs::path>& path) {
  if (!path.refused()) return path.failure();
  Refusal r = path.refusal();
  r.tool = "define_target";
  return r;
}

std::string summarize(const Manifest& m, const std::string& name, const fs::path& dir, const fs::path& repo) {
  std::ostringstream o;
  o << "Campaign " << name << "\n"
    << "  repository:        " << repo.string() << "\n"
    << "  campaign dir:      " << dir.string() << "\n"
    << "  op / backend / gpu: " << m.targetOp << " / " << toString(m.targetBackend) << " / " << m.targetGpu << "\n"
    << "  primary metric:    " << m.primaryMetric.column << "\n"
    << "  kernel source:     " << util::join(m.kernelSource, ", ") << "\n"
    << "  target shapes:     " << (m.targetShapes.all ? std::string("all") : util::join(m.targetShapes.labels, ", ")) << "\n"
    << "  build command:     " << (m.buildCommand.empty() ? std::string("(none)") : m.buildCommand.text) << "\n"
    << "  test command:      " << m.testCommand.text << "\n"
    << "  benchmark command: " << m.benchmarkCommand.text << "\n"
    << "  quick command:     " << m.quickCommand.text << "\n"
    << "  performance target: " << (m.performanceTarget ? m.performanceTarget->text : std::string("(none)")) << "\n"
    << "  max iterations:    " << (m.maxIterations ? std::to_string(*m.maxIterations) : std::string("(none)")) << "\n"
    << "  git branch:        "
    << (m.gitBranch.kind == GitBranch::Kind::None ? std::string("none (work on the current branch)")
                                                 : effectiveBranch(m, name).value_or("")) << "\n"
    << "  gate:              " << m.gate.pairs << " interleaved pairs (up to " << m.gate.maxPairs
    << "), regression tolerance " << m.gate.regressionPct << "%\n";
  return o.str();
}

// Builds the manifest YAML from the request: the YAML source first, then each field given.
std::variant<std::string, ToolFailure> manifestYamlFrom(const DefineTargetRequest& q, const fs::path& repo,
                                                        const EngineOptions& options, const std::string& now) {
  YAML::Node node;
  try {
    std::string source = q.manifestYaml;
    if (!q.manifestPath.empty()) {
      // A manifest file inside the repository (or the workspace).
      auto inRepo = resolveInside(repo, q.manifestPath, "manifest_path", PathGuardOptions{true, false, "the repository"});
      fs::path file;
      if (auto* p = std::get_if<fs::path>(&inRepo)) {
        file = *p;
      } else {
        auto inWs = resolveInside(options.workspaceRoot, q.manifestPath, "manifest_path",
                                  PathGuardOptions{true, false, "the workspace"});
        if (auto* p2 = std::get_if<fs::path>(&inWs)) file = *p2;
        else return toolFailure(std::get<PathRefusal>(inWs).message, "manifest_path", "name a manifest YAML file inside the repository or the workspace");
      }
      source = util::readFile(file);
    }
    node = source.empty() ? YAML::Node(YAML::NodeType::Map) : YAML::Load(source);
    if (!node.IsMap()) return toolFailure("the manifest YAML is not a mapping of field: value", q.manifestPath.empty() ? "manifest_yaml" : "manifest_path", "write one 'field: value' per line");
  } catch (const YAML::Exception& e) {
    return toolFailure(std::string("the manifest YAML does not parse: ") + e.what(),
                       q.manifestPath.empty() ? "manifest_yaml" : "manifest_path", "fix the YAML syntax");
  } catch (const std::exception& e) {
    return toolFailure(e.what(), "manifest_path", "name a readable manifest file");
  }
  auto set = [&](const char* key, const std::optional<std::string>& v) {
    if (v) node[key] = *v;
  };
  set("target_op", q.targetOp);
  set("target_backend", q.targetBackend);
  set("target_gpu", q.targetGpu);
  set("primary_metric", q.primaryMetric);
  set("test_command", q.testCommand);
  set("benchmark_command", q.benchmarkCommand);
  set("quick_command", q.quickCommand);
  set("build_command", q.buildCommand);
  set("profile_command", q.profileCommand);
  set("performance_target", q.performanceTarget);
  set("execution_mode", q.executionMode);
  set("git_branch", q.gitBranch);
  set("base_branch", q.baseBranch);
  set("max_duration", q.maxDuration);
  set("project_skill", q.projectSkill);
  set("created", q.created);
  set("schema", q.schema);
  set("tips_root", q.tipsRoot);
  if (q.kernelSource) node["kernel_source"] = *q.kernelSource;
  if (q.targetShapes) {
    if (q.targetShapes->size() == 1 && util::toLower((*q.targetShapes)[0]) == "all") node["target_shapes"] = "all";
    else node["target_shapes"] = *q.targetShapes;
  }
  if (q.maxIterations) node["max_iterations"] = *q.maxIterations;
  if (q.gitCommit) node["git_commit"] = *q.gitCommit;
  if (!node["created"] || node["created"].IsNull()) node["created"] = now;
  // Representative shapes are chosen at BASELINE unless the user names them.
  YAML::Emitter out;
  out << node;
  return std::string(out.c_str()) + "\n";
}

}  // namespace

namespace {

// The repository's top level: a git repository inside the workspace with a HEAD commit.
Outcome<fs::path> repositoryTop(const EngineOptions& options, const std::string& repoPath) {
  auto path = detail::resolveWorkspacePath(options, repoPath, "repo_path", true);
  if (!path.ok()) return path;
  if (!lineage::GitRepo::isRepo(path.value())) {
    return toolFailure(path.value().string() + " is not a git repository", "repo_path",
                       "pass the repository that holds the kernel (git init && git commit first)");
  }
  try {
    lineage::GitRepo repo(path.value());
    fs::path top = repo.topLevel();
    repo.headCommit();
    return top;
  } catch (const std::exception& e) {
    return toolFailure(std::string("the repository has no usable HEAD commit: ") + e.what(), "repo_path",
                       "commit the kernel once before starting a campaign");
  }
}

Refusal invalidManifest(const std::vector<FieldError>& errors) {
  Refusal r;
  r.code = RefusalCode::InvalidManifest;
  r.tool = "define_target";
  r.why = "the manifest has " + std::to_string(errors.size()) + " problem(s); nothing was written";
  r.phaseNow = std::nullopt;
  r.field = errors.empty() ? "" : errors.front().field;
  for (const auto& e : errors) r.details.push_back(toString(e));
  r.toolToCall = "define_target (with the fields fixed)";
  return r;
}

// The manifest from the request, every problem named; kernel sources as paths inside the
// repository; tips_root inside the workspace (refused now, not when a tip is written).
Outcome<Manifest> manifestFor(const DefineTargetRequest& q, const fs::path& top, const EngineOptions& options) {
  auto yaml = manifestYamlFrom(q, top, options, util::formatManifestCreated(options.clock()));
  if (auto* f = std::get_if<ToolFailure>(&yaml)) return *f;
  auto parsed = parseManifest(std::get<std::string>(yaml));
  if (auto* errors = std::get_if<std::vector<FieldError>>(&parsed)) return invalidManifest(*errors);
  Manifest manifest = std::get<Manifest>(std::move(parsed));
  for (std::size_t i = 0; i < manifest.kernelSource.size(); ++i) {
    const std::string arg = "kernel_source[" + std::to_string(i) + "]";
    auto rel = relativeInside(top, manifest.kernelSource[i], arg, PathGuardOptions{true, false, "the repository"});
    if (auto* refusal = std::get_if<PathRefusal>(&rel)) {
      Refusal r;
      r.code = RefusalCode::PathOutside;
      r.tool = "define_target";
      r.why = refusal->message;
      r.field = arg;
      r.toolToCall = "define_target (kernel_source as paths inside the repository)";
      return r;
    }
    manifest.kernelSource[i] = std::get<std::string>(rel);
  }
  if (auto tips = detail::manifestTipsRoot(options, manifest); !tips.ok()) {
    if (!tips.refused()) return tips.failure();
    Refusal r = tips.refusal();
    r.tool = "define_target";
    return r;
  }
  return manifest;
}

// A campaign already at `dir`, opened to be defined again; only one still in DEFINE_TARGET may be.
// One whose manifest.yaml was edited in DEFINE_TARGET is taken over too (that edit is what a
// redefinition replaces).
Outcome<std::unique_ptr<OpenCampaign>> reopenForRedefinition(const EngineOptions& options, const fs::path& dir) {
  auto opened = detail::openCampaign(options, dir.string(), CampaignTool::DefineTarget, detail::OpenMode::Mutate);
  std::unique_ptr<OpenCampaign> session;
  if (opened.ok()) {
    session = std::move(opened.value());
  } else {
    if (!(opened.refused() && opened.refusal().code == RefusalCode::RecordTampered)) return opened;
    OpenCampaign probe;
    if (detail::loadEvents(probe, Ledger(CampaignPaths(dir).ledger).readAll()) || probe.state.phase != Phase::DefineTarget) {
      return opened.refusal();
    }
    session = std::make_unique<OpenCampaign>();
    session->options = &options;
    session->paths = CampaignPaths(dir);
    session->lock = detail::tryLockCampaign(options, session->paths);
    if (!session->lock) return opened.refusal();
    session->ledger = std::make_unique<Ledger>(session->paths.ledger);
    if (auto refused = detail::keyLedger(*session, false)) return *refused;
    if (auto error = detail::loadEvents(*session, session->ledger->readAll())) return toolFailure(error->message);
  }
  if (session->state.phase != Phase::DefineTarget) {
    return session->refuse(RefusalCode::WrongPhase,
                           "a campaign already exists at " + dir.string() + " and its target was confirmed; a "
                           "confirmed target cannot be redefined",
                           "campaign_status");
  }
  return session;
}

// A new campaign directory, locked, with a keyed ledger (unkeyed when no key can be stored).
Outcome<std::unique_ptr<OpenCampaign>> createCampaign(const EngineOptions& options, const fs::path& dir) {
  auto session = std::make_unique<OpenCampaign>();
  session->options = &options;
  session->paths = CampaignPaths(dir);
  try {
    session->paths.createLayout();
  } catch (const std::exception& e) {
    return toolFailure(std::string("cannot create the campaign directory: ") + e.what(), "campaign_dir",
                       "choose a writable directory");
  }
  session->lock = detail::tryLockCampaign(options, session->paths);
  if (!session->lock) {
    Refusal r;
    r.code = RefusalCode::Busy;
    r.tool = "define_target";
    r.why = "another call is creating this campaign";
    return r;
  }
  session->ledger = std::make_unique<Ledger>(session->paths.ledger);
  detail::keyLedger(*session, true);
  return session;
}

// manifest.yaml written and the definition in the ledger (.kopt/ kept out of the user's history).
std::optional<ToolFailure> writeDefinition(OpenCampaign& session, const std::string& text, const fs::path& dir,
                                           bool redefined) {
  try {
    lineage::GitRepo(session.repo).addExclude(".kopt/");
    session.paths.createLayout();
    util::writeFileAtomic(session.paths.manifest, text);
    session.manifestSha = util::sha256Hex(text);
    TargetDefined defined;
    defined.campaign = session.name;
    defined.repo = session.repo.string();
    defined.campaignDir = dir.string();
    defined.manifestSha256 = session.manifestSha;
    defined.redefined = redefined;
    session.record(defined, std::nullopt);
  } catch (const std::exception& e) {
    return toolFailure(std::string("cannot write the campaign: ") + e.what());
  }
  return std::nullopt;
}

}  // namespace

Outcome<DefineTargetResult> CampaignEngine::defineTarget(const DefineTargetRequest& q) {
  auto top = repositoryTop(options_, q.repoPath);
  if (!top.ok()) return asDefineTargetError(top);
  auto manifest = manifestFor(q, top.value(), options_);
  if (!manifest.ok()) return errorOf<DefineTargetResult>(manifest);
  const Manifest& m = manifest.value();
  const std::string name = campaignName(m);
  fs::path dir = defaultCampaignDir(top.value(), name);
  if (!q.campaignDir.empty()) {
    auto d = detail::resolveWorkspacePath(options_, q.campaignDir, "campaign_dir", false);
    if (!d.ok()) return asDefineTargetError(d);
    dir = d.value();
  }
  DefineTargetResult result;
  std::error_code ec;
  result.redefined = fs::exists(CampaignPaths(dir).ledger, ec);
  auto opened = result.redefined ? reopenForRedefinition(options_, dir) : createCampaign(options_, dir);
  if (!opened.ok()) return errorOf<DefineTargetResult>(opened);
  OpenCampaign& session = *opened.value();
  session.tool = CampaignTool::DefineTarget;
  session.name = name;
  session.repo = top.value();
  session.manifest = m;
  const std::string text = toYaml(m);
  if (auto failure = writeDefinition(session, text, dir, result.redefined)) return *failure;
  result.campaignName = name;
  result.campaignDir = dir.string();
  result.repo = top.value().string();
  result.manifestYaml = text;
  result.summary = summarize(m, name, dir, top.value());
  if (m.buildCommand.empty() && isCompiled(m.targetBackend)) {
    result.warnings.push_back("target_backend " + std::string(toString(m.targetBackend)) +
                              " is compiled but build_command is empty: kopt will not rebuild after a change");
  }
  result.phase = Phase::DefineTarget;
  return result;
}

Outcome<TargetSummary> CampaignEngine::targetSummary(const std::string& campaignDir) {
  auto opened = detail::openCampaign(options_, campaignDir, CampaignTool::ConfirmTarget, detail::OpenMode::Query,
                                    "confirm_target");
  if (!opened.ok()) {
    if (opened.refused()) return opened.refusal();
    return opened.failure();
  }
  const OpenCampaign& s = *opened.value();
  TargetSummary t;
  t.campaignName = s.name;
  t.manifestYaml = util::readFile(s.paths.manifest);
  t.summary = summarize(s.manifest, s.name, s.paths.root, s.repo);
  t.phase = s.state.phase;
  return t;
}

Outcome<ConfirmTargetResult> CampaignEngine::confirmTarget(const ConfirmTargetRequest& q) {
  auto opened = detail::openCampaign(options_, q.campaignDir, CampaignTool::ConfirmTarget, detail::OpenMode::Mutate);
  if (!opened.ok()) {
    if (opened.refused()) return opened.refusal();
    return opened.failure();
  }
  OpenCampaign& s = *opened.value();
  if (!allowedIn(CampaignTool::ConfirmTarget, s.state.phase)) return phaseRefusal(s);
  if (!q.confirm) {
    Refusal r = s.refuse(RefusalCode::NotConfirmed,
                         "the target was not confirmed" + (q.method == "elicitation" ? std::string(" by the user") : std::string()) +
                             "; nothing changes on disk until it is",
                         "define_target (to change the target), or confirm_target with confirm: true");
    r.field = "confirm";
    return r;
  }
  const std::string by = util::trim(q.confirmedBy);
  if (by.empty()) {
    return toolFailure("is required: kopt records who confirmed the target", "confirmed_by",
                       "pass the name of the person who confirmed it");
  }
  s.record(TargetConfirmed{by, q.method.empty() ? "argument" : q.method, s.manifestSha, ""}, std::nullopt);
  ConfirmTargetResult r;
  r.confirmedBy = by;
  r.method = q.method.empty() ? "argument" : q.method;
  r.manifestSha256 = s.manifestSha;
  r.phase = s.state.phase;
  return r;
}

namespace {

// The quick harness template, with its placeholders filled.
std::string fillHarness(std::string text, const Manifest& m) {
  const std::string backend = toString(m.targetBackend);
  // harness/python/quick_test_bench.py's placeholder, and its KIND line for a memory-bound schema.
  text = util::replaceAll(text, "\"__KOPT_BACKEND__\"", "\"" + backend + "\"");
  if (m.schema.kind == SchemaKind::MemoryBound) text = util::replaceAll(text, "\nKIND = \"gemm\"", "\nKIND = \"memory\"");
  for (const char* p : {"{{TARGET_BACKEND}}", "__TARGET_BACKEND__", "${TARGET_BACKEND}"}) text = util::replaceAll(text, p, backend);
  for (const char* p : {"{{TARGET_OP}}", "__TARGET_OP__", "${TARGET_OP}"}) text = util::replaceAll(text, p, m.targetOp);
  for (const char* p : {"{{TARGET_GPU}}", "__TARGET_GPU__", "${TARGET_GPU}"}) text = util::replaceAll(text, p, m.targetGpu);
  return text;
}

}  // namespace

Outcome<PrepareEnvironmentResult> CampaignEngine::prepareEnvironment(const std::string& campaignDir) {
  auto opened = detail::openCampaign(options_, campaignDir, CampaignTool::PrepareEnvironment, detail::OpenMode::Mutate);
  if (!opened.ok()) {
    if (opened.refused()) return opened.refusal();
    return opened.failure();
  }
  OpenCampaign& s = *opened.value();
  if (!allowedIn(CampaignTool::PrepareEnvironment, s.state.phase)) return phaseRefusal(s);
  if (!s.manifest.gitCommit) {
    return toolFailure("git_commit: false is not supported: kopt's lineage (the best-build worktree, exact "
                       "rollbacks) is a commit per accepted round",
                       "git_commit", "define_target with git_commit: true (the campaign branch keeps your branch clean)");
  }
  PrepareEnvironmentResult result;
  try {
    lineage::GitRepo repo(s.repo);
    result.baseCommit = repo.headCommit();
    result.branch = effectiveBranch(s.manifest, s.name);
    if (result.branch) repo.createAndCheckoutBranch(*result.branch);
    repo.addExclude(".kopt/");
    s.paths.createLayout();
    // The template is copied only for a quick command that names a harness the repository does not
    // hold (a template for the user to configure); one kopt init wrote and committed is used as is.
    const std::string& quick = s.manifest.quickCommand.text;
    const auto& words = s.manifest.quickCommand.parsed.argv;
    const bool committedHarness = std::any_of(words.begin(), words.end(), [&](const std::string& w) {
      std::error_code ec;
      return w.find("quick_test_bench.py") != std::string::npos && fs::is_regular_file(s.repo / w, ec);
    });
    if (quick.find("quick_test_bench.py") != std::string::npos && !committedHarness && !options_.harnessTemplateDir.empty()) {
      const fs::path tpl = options_.harnessTemplateDir / "quick_test_bench.py";
      std::error_code ec;
      if (fs::is_regular_file(tpl, ec)) {
        util::writeFileAtomic(s.paths.quickHarness, fillHarness(util::readFile(tpl), s.manifest));
        result.harnessCopied = true;
        result.harnessPath = s.paths.quickHarness.string();
      }
    }
  } catch (const std::exception& e) {
    return toolFailure(std::string("cannot prepare the environment: ") + e.what(), "",
                       "make sure the repository is not mid-merge and the branch can be checked out");
  }
  EnvironmentPrepared prepared;
  prepared.branch = result.branch;
  prepared.baseCommit = result.baseCommit;
  prepared.manifestSha256 = s.manifestSha;
  if (result.harnessCopied) prepared.harness = result.harnessPath;
  s.record(prepared, std::nullopt);
  result.campaignDir = s.paths.root.string();
  result.manifestSha256 = s.manifestSha;
  result.phase = s.state.phase;
  return result;
}

Outcome<ReadTipsResult> CampaignEngine::readTips(const std::string& campaignDir) {
  auto opened = detail::openCampaign(options_, campaignDir, CampaignTool::ReadTips, detail::OpenMode::Mutate);
  if (!opened.ok()) {
    if (opened.refused()) return opened.refusal();
    return opened.failure();
  }
  OpenCampaign& s = *opened.value();
  if (!allowedIn(CampaignTool::ReadTips, s.state.phase)) return phaseRefusal(s);
  auto tipsRoot = detail::manifestTipsRoot(options_, s.manifest);
  if (!tipsRoot.ok()) return errorOf<ReadTipsResult>(tipsRoot);
  TipsStore store(tipsRoot.value());
  TipKey key{s.manifest.targetGpu, s.manifest.targetOp, backendLower(s.manifest.targetBackend)};
  ReadTipsResult result;
  try {
    TipsQuery found = store.query(key);
    result.path = found.path.string();
    result.exists = found.fileExists;
    result.count = static_cast<int>(found.items.size());
    for (const auto& item : found.items) result.headings.push_back(item.heading);
    result.text = store.read(key).value_or("");
  } catch (const std::exception& e) {
    return toolFailure(std::string("cannot read the tips: ") + e.what());
  }
  s.record(TipsRead{result.path, result.exists, result.count, ""}, std::nullopt);
  result.phase = s.state.phase;
  return result;
}

}  // namespace kopt::campaign
