#include "campaign/command_run.h"

#include <cmath>
#include <system_error>

#include "campaign/campaign_env.h"
#include "exec/executor_config.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

std::unique_ptr<exec::Executor> makeExecutorFor(const EngineOptions& options, const Manifest& manifest) {
  if (options.executorFactory) return options.executorFactory(manifest);
  return exec::makeExecutor(manifest.executor);
}

namespace {

// A build or a test run as its ledger event: the same fields, how the command ended.
template <class Event>
Event commandFinished(const exec::RunResult& r, const std::string& fingerprint) {
  Event e;
  e.ok = r.ok();
  e.outcome = exec::toString(r.outcome);
  e.exitCode = r.exitCode;
  e.wallMs = r.wallTime.count();
  e.fingerprint = fingerprint;
  return e;
}

}  // namespace

BuildFinished buildFinished(const exec::RunResult& r, const std::string& fingerprint) {
  return commandFinished<BuildFinished>(r, fingerprint);
}

TestsFinished testsFinished(const exec::RunResult& r, const std::string& fingerprint) {
  return commandFinished<TestsFinished>(r, fingerprint);
}

std::string describe(const exec::RunResult& r) {
  std::string s = exec::toString(r.outcome);
  if (r.outcome == exec::RunOutcome::Exited) s += " with code " + std::to_string(r.exitCode);
  if (r.outcome == exec::RunOutcome::Signaled) s += " (signal " + std::to_string(r.signal) + ")";
  if (!r.error.empty()) s += ": " + r.error;
  return s;
}

exec::RunResult runLogged(exec::Executor& executor, const Command& command, const PlaceholderValues& values,
                          const fs::path& cwd, const fs::path& log, int timeoutSeconds, int hangSeconds,
                          const CallContext& ctx, const std::string& what, double progressAt,
                          std::optional<double> progressTotal) {
  exec::ParsedCommand parsed = expandPlaceholders(command, values);
  exec::CommandSpec spec;
  spec.argv = parsed.argv;
  spec.env = parsed.env;
  addCampaignEnvironment(spec.env, values);
  spec.cwd = cwd;
  spec.stdoutPath = log;
  spec.timeout = std::chrono::seconds(timeoutSeconds);
  spec.hangAfter = std::chrono::seconds(hangSeconds);
  std::error_code ec;
  fs::create_directories(log.parent_path(), ec);
  exec::RunObserver observer;
  observer.cancel = ctx.cancel;
  observer.onProgress = [&](const exec::RunProgress& p) {
    const double secs = std::chrono::duration<double>(p.elapsed).count();
    const double fraction = 0.9 * (1.0 - std::exp(-secs / 30.0));
    std::string msg = what + ": " + std::to_string(p.outputBytes) + " bytes of output";
    if (!p.lastLine.empty()) msg += ", last line: " + util::truncateUtf8(p.lastLine, 120);
    ctx.report(progressAt + fraction, progressTotal, msg);
  };
  ctx.report(progressAt, progressTotal, what + ": started");
  return executor.run(spec, observer);
}

std::string logTail(const fs::path& log, std::size_t maxBytes) {
  std::optional<std::string> text;
  try {
    text = util::readFileIfExists(log);
  } catch (const std::exception&) {
    return {};
  }
  if (!text) return {};
  if (text->size() <= maxBytes) return util::sanitizeUtf8(*text);
  std::size_t cut = text->size() - maxBytes;
  const std::size_t nl = text->find('\n', cut);
  if (nl != std::string::npos && nl + 1 < text->size()) cut = nl + 1;
  return "[... " + std::to_string(cut) + " earlier bytes in " + log.filename().string() + "]\n" +
         util::sanitizeUtf8(std::string_view(*text).substr(cut));
}

}  // namespace kopt::campaign::detail
