// kopt demo: a whole optimisation campaign on the bundled CPU kernel, driven through the real MCP
// protocol. A scripted agent (tools/demo/cpu_campaign.json) starts `kopt serve` as a child process,
// talks JSON-RPC to it over stdio like any MCP client, edits the kernel between calls, and ends
// with the report. Every decision printed here was taken by the server, not by the script.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/campaign_script.h"
#include "cli/commands.h"
#include "cli/mcp_stdio_client.h"

namespace kopt::cli {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct DemoOptions {
  fs::path sourceDir;
  fs::path scriptPath;
  fs::path workDir;
  fs::path repoDir;  // --repo: the campaign runs in this git repository itself, not in a copy
  bool quiet = false;
};

fs::path selfExecutable() {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("kopt") : self;
}

}  // namespace

// Where the demo's script and kernel are: KOPT_SOURCE_DIR, then an installed kopt's share/kopt
// (cmake --install, the .deb), then the source tree this binary was built from.
fs::path demoSourceDir() {
  if (const char* env = std::getenv("KOPT_SOURCE_DIR"); env && *env) return env;
  std::error_code ec;
  const fs::path installed = selfExecutable().parent_path() / ".." / "share" / "kopt";
  if (fs::is_regular_file(installed / "tools/demo/cpu_campaign.json", ec)) return fs::weakly_canonical(installed, ec);
#ifdef KOPT_SOURCE_DIR
  return KOPT_SOURCE_DIR;
#else
  return fs::current_path();
#endif
}

namespace {

int run(const std::string& command) { return std::system(command.c_str()); }

std::string quote(const fs::path& p) {
  std::string out = "'";
  for (char c : p.string()) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The kernel is copied into a fresh git repository so the campaign's branch, commits and reverts
// happen there and never in kopt's own checkout.
std::optional<std::string> makeRepository(const fs::path& source, const fs::path& repo) {
  std::error_code ec;
  fs::create_directories(repo, ec);
  if (ec) return "cannot create " + repo.string() + ": " + ec.message();
  for (const auto& entry : fs::directory_iterator(source)) {
    // kernel_dir "." copies a whole checkout (the GPU campaigns need src/device and harness/hip
    // beside the kernel): never its history, build trees, test clients or earlier campaigns.
    const auto name = entry.path().filename().string();
    if (name == "build" || name.rfind("build-", 0) == 0 || name == "__pycache__" || name == ".git" || name == "node_modules" ||
        name == ".kopt" || name == ".whl" || name == ".gl") {
      continue;
    }
    fs::copy(entry.path(), repo / name, fs::copy_options::recursive, ec);
    if (ec) return "cannot copy " + entry.path().string() + ": " + ec.message();
  }
  // Appended, not replaced: a copied checkout keeps its own ignores. Build trees must be ignored,
  // or kopt rightly treats a rebuilt binary named by a command as a frozen file that changed.
  std::ofstream(repo / ".gitignore", std::ios::app) << "\nbuild/\nbuild-*/\n__pycache__/\n";
  const std::string git = "git -C " + quote(repo) + " ";
  if (run(git + "init -q -b main") != 0 ||
      run(git + "-c user.name=kopt-demo -c user.email=demo@kopt.invalid add -A") != 0 ||
      run(git + "-c user.name=kopt-demo -c user.email=demo@kopt.invalid commit -qm " +
          quote("kopt demo: a copy of " + fs::weakly_canonical(source).filename().string())) != 0) {
    return "git could not create the demo repository in " + repo.string() + " (is git installed?)";
  }
  return std::nullopt;
}

std::string firstText(const json& result) {
  for (const auto& block : result.value("content", json::array())) {
    if (block.value("type", "") == "text") return block.value("text", "");
  }
  return "";
}

std::string indent(const std::string& text, size_t maxLines) {
  std::istringstream in(text);
  std::string line, out;
  size_t n = 0;
  while (std::getline(in, line)) {
    if (n++ == maxLines) {
      out += "      ...\n";
      break;
    }
    out += "      " + line + "\n";
  }
  return out;
}

int parseArgs(const Args& args, DemoOptions& options) {
  options.sourceDir = demoSourceDir();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) -> std::optional<std::string> {
      if (i + 1 >= args.size()) {
        std::cerr << "kopt demo: " << flag << " needs a value\n";
        return std::nullopt;
      }
      return args[++i];
    };
    if (a == "--keep" || a == "--dir") {
      auto v = value(a.c_str());
      if (!v) return 2;
      options.workDir = *v;
    } else if (a == "--script") {
      auto v = value("--script");
      if (!v) return 2;
      options.scriptPath = *v;
    } else if (a == "--source") {
      auto v = value("--source");
      if (!v) return 2;
      options.sourceDir = *v;
    } else if (a == "--repo") {
      auto v = value("--repo");
      if (!v) return 2;
      options.repoDir = *v;
    } else if (a == "--quiet") {
      options.quiet = true;
    } else {
      std::cerr << "kopt demo: unknown option '" << a << "'\n"
                << "usage: kopt demo [--dir DIR] [--script FILE] [--source KOPT_SOURCE_DIR] [--repo GIT_REPO] [--quiet]\n";
      return 2;
    }
  }
  if (options.scriptPath.empty()) options.scriptPath = options.sourceDir / "tools/demo/cpu_campaign.json";
  if (options.workDir.empty() && options.repoDir.empty()) {
    std::string pattern = (fs::temp_directory_path() / "kopt-demo-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      std::cerr << "kopt demo: cannot create a temporary directory\n";
      return 1;
    }
    options.workDir = pattern;
  }
  return 0;
}

}  // namespace

int demoCommand(const Args& args) {
  DemoOptions options;
  if (int rc = parseArgs(args, options); rc != 0) return rc;

  std::ifstream scriptFile(options.scriptPath);
  if (!scriptFile) {
    std::cerr << "kopt demo: cannot read the campaign script " << options.scriptPath
              << " (pass --source <kopt checkout> or set KOPT_SOURCE_DIR)\n";
    return 1;
  }
  json document;
  try {
    document = json::parse(scriptFile);
  } catch (const std::exception& e) {
    std::cerr << "kopt demo: " << options.scriptPath << " is not valid JSON: " << e.what() << "\n";
    return 1;
  }
  auto parsed = parseCampaignScript(document);
  if (parsed.index() == 1) {
    std::cerr << "kopt demo: " << options.scriptPath << ": " << std::get<std::string>(parsed) << "\n";
    return 1;
  }
  const CampaignScript& script = std::get<CampaignScript>(parsed);

  // --repo: the user's own repository, its files and history as they are, and its @file:
  // arguments read from it; otherwise a fresh repository holding a copy of the script's kernel_dir.
  fs::path repo, workspace, files;
  if (!options.repoDir.empty()) {
    std::error_code ec;
    repo = workspace = files = fs::weakly_canonical(fs::absolute(options.repoDir), ec);
    if (!fs::exists(repo / ".git", ec)) {
      std::cerr << "kopt demo: --repo " << options.repoDir << " is not the root of a git repository (no .git there): "
                << "run `git init` and commit your kernel first\n";
      return 1;
    }
    std::cout << "kopt demo: campaign '" << script.name << "' on your repository " << repo.string();
  } else {
    repo = fs::absolute(options.workDir / "repo");
    workspace = fs::absolute(options.workDir);
    files = options.sourceDir;
    if (auto error = makeRepository(options.sourceDir / script.kernelDir, repo)) {
      std::cerr << "kopt demo: " << *error << "\n";
      return 1;
    }
    std::cout << "kopt demo: campaign '" << script.name << "' on a copy of " << script.kernelDir << " in " << repo.string();
  }
  std::cout << "\n          (a scripted agent drives `kopt serve` over MCP stdio; kopt runs and judges everything)\n\n";

  std::map<std::string, std::string> variables{{"repo", repo.string()}, {"workdir", workspace.string()}};
  McpStdioClient client({selfExecutable().string(), "serve", "--stdio", "--workspace", workspace.string()});
  const auto started = std::chrono::steady_clock::now();
  int failures = 0;
  try {
    json init = client.initialize("kopt-demo", KOPT_VERSION_STRING);
    std::cout << "connected to " << init["serverInfo"].value("name", "?") << " " << init["serverInfo"].value("version", "?")
              << ", protocol " << init.value("protocolVersion", "?") << "\n\n";
    for (const ScriptStep& step : script.steps) {
      if (!step.say.empty()) std::cout << "\n## " << step.say << "\n";
      if (const auto* edit = std::get_if<SourceEdit>(&step.action)) {
        std::cout << "  agent edits " << edit->file << ":  " << edit->replace << "  ->  " << edit->with << "\n";
        if (auto error = applyEdit(repo, *edit)) {
          std::cerr << "kopt demo: the scripted edit failed: " << *error << "\n";
          return 1;
        }
        continue;
      }
      const ToolStep& tool = std::get<ToolStep>(step.action);
      auto argsOrError = substitute(tool.arguments, variables, files);
      if (argsOrError.index() == 1) {
        std::cerr << "kopt demo: step '" << tool.tool << "': " << std::get<std::string>(argsOrError) << "\n";
        return 1;
      }
      std::cout << "  -> " << tool.tool << "\n";
      int progressLines = 0;
      json result = client.callTool(tool.tool, std::get<json>(argsOrError), [&](const json& note) {
        if (options.quiet || note.value("method", "") != "notifications/progress") return;
        const auto& p = note["params"];
        if (p.contains("message") && progressLines++ < 6) std::cout << "     . " << p["message"].get<std::string>() << "\n";
      });
      const bool isError = result.value("isError", false);
      const json structured = result.value("structuredContent", json::object());
      std::cout << (isError ? "  <- REFUSED / FAILED\n" : "  <- ok\n") << indent(firstText(result), options.quiet ? 4 : 14);
      for (const auto& [name, pointer] : tool.capture) {
        json::json_pointer ptr(pointer);
        if (structured.contains(ptr)) {
          const json& v = structured.at(ptr);
          variables[name] = v.is_string() ? v.get<std::string>() : v.dump();
        }
      }
      std::vector<std::string> problems = checkExpectations(tool, structured);
      if (isError != tool.expectError) {
        problems.push_back(tool.expectError ? "expected kopt to refuse this call, but it succeeded"
                                            : "the call failed: " + firstText(result).substr(0, 400));
      }
      for (const auto& p : problems) std::cerr << "  !! " << tool.tool << ": " << p << "\n";
      failures += static_cast<int>(problems.size());
      if (!problems.empty() && !tool.expectError && isError) break;  // the campaign cannot go on
    }
  } catch (const std::exception& e) {
    std::cerr << "kopt demo: " << e.what() << "\n";
    client.close();
    return 1;
  }
  const int serverExit = client.close();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count();

  std::cout << "\n== done in " << seconds << " s ==\n";
  if (auto dir = variables.find("campaign_dir"); dir != variables.end()) {
    const fs::path campaign = dir->second;
    std::cout << "campaign records:  " << campaign.string() << "\n"
              << "report:            " << (campaign / "report.md").string() << "\n"
              << "charts:            " << (campaign / "report-metric.svg").string() << ", "
              << (campaign / "report-heatmap.svg").string() << "\n"
              << "kernel lineage:    git -C " << repo.string() << " log --oneline --all\n";
  }
  if (serverExit != 0) std::cerr << "kopt demo: the server exited with status " << serverExit << "\n";
  if (failures > 0) {
    std::cerr << "kopt demo: " << failures << " expectation(s) of the script were not met (see '!!' above)\n";
    return 1;
  }
  return serverExit == 0 ? 0 : 1;
}

}  // namespace kopt::cli
