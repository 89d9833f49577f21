#pragma once
// Running a manifest command for a tool: the executor the manifest names, the command with its
// output in a log and its progress reported, and what the log and the ledger say of the run.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "campaign/engine_session.h"
#include "campaign/engine_types.h"
#include "exec/executor.h"

namespace kopt::campaign::detail {

std::unique_ptr<exec::Executor> makeExecutorFor(const EngineOptions& options, const Manifest& manifest);

// Runs a manifest command with its output in `log`; progress as "<what>: N bytes, last line".
exec::RunResult runLogged(exec::Executor& executor, const Command& command, const PlaceholderValues& values,
                          const std::filesystem::path& cwd, const std::filesystem::path& log, int timeoutSeconds,
                          int hangSeconds, const CallContext& ctx, const std::string& what, double progressAt,
                          std::optional<double> progressTotal);
// The last `maxBytes` of a log (cut at a line start), "" when missing.
std::string logTail(const std::filesystem::path& log, std::size_t maxBytes = 4000);
std::string describe(const exec::RunResult& r);
// The ledger events of a finished build or test run of the kernel files `fingerprint` names.
BuildFinished buildFinished(const exec::RunResult& r, const std::string& fingerprint);
TestsFinished testsFinished(const exec::RunResult& r, const std::string& fingerprint);

}  // namespace kopt::campaign::detail
