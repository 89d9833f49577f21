#include "exec/shard.h"

#include <unistd.h>

#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "exec/output_tail.h"
#include "util/json_text.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace kopt::exec {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      if (!cur.empty() && cur.back() == '\r') cur.pop_back();
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));  // a last line without '\n'
  return out;
}

// The first CSV field, unquoted ("a,b",... -> a,b).
std::string firstField(const std::string& row) {
  if (row.empty() || row[0] != '"') return row.substr(0, row.find(','));
  std::string out;
  for (size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '"') {
      if (i + 1 < row.size() && row[i + 1] == '"') {
        out.push_back('"');
        ++i;
      } else {
        break;
      }
    } else {
      out.push_back(row[i]);
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::optional<std::string> readWhole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Write-then-rename, so a reader never sees half a table.
bool writeAtomically(const fs::path& p, const std::string& content, std::string& error) {
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  const fs::path tmp = p.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      error = "cannot write '" + tmp.string() + "'";
      return false;
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    error = "cannot rename '" + tmp.string() + "' to '" + p.string() + "': " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace

std::vector<std::vector<std::string>> splitShapes(const std::vector<std::string>& shapes, std::size_t shards) {
  const std::size_t n = std::max<std::size_t>(1, std::min(shards, shapes.size()));
  std::vector<std::vector<std::string>> out(shapes.empty() ? 0 : n);
  for (std::size_t i = 0; i < shapes.size(); ++i) out[i % n].push_back(shapes[i]);
  return out;
}

std::variant<std::string, MergeError> mergeSummaryCsv(const std::vector<std::string>& shapeOrder,
                                                      const std::vector<std::string>& shardCsvs) {
  if (shardCsvs.empty()) return MergeError{"no shard CSVs to merge"};
  std::optional<std::string> header;
  std::map<std::string, std::pair<std::string, std::size_t>> rowOf;  // label -> (row, shard)
  const std::set<std::string> wanted(shapeOrder.begin(), shapeOrder.end());
  for (std::size_t s = 0; s < shardCsvs.size(); ++s) {
    const auto ls = lines(shardCsvs[s]);
    if (ls.empty()) return MergeError{"shard " + std::to_string(s) + " wrote an empty CSV (no header line)"};
    if (!header) {
      header = ls[0];
    } else if (ls[0] != *header) {
      return MergeError{"shard " + std::to_string(s) + "'s CSV header differs from shard 0's: '" + ls[0] +
                        "' vs '" + *header + "'"};
    }
    for (std::size_t i = 1; i < ls.size(); ++i) {
      if (ls[i].empty()) continue;
      const std::string label = firstField(ls[i]);
      if (!wanted.count(label)) {
        return MergeError{"shard " + std::to_string(s) + " wrote a row for '" + label + "', which is not one of its shapes"};
      }
      if (auto it = rowOf.find(label); it != rowOf.end()) {
        return MergeError{"shape '" + label + "' has two rows (shards " + std::to_string(it->second.second) + " and " +
                          std::to_string(s) + ")"};
      }
      rowOf[label] = {ls[i], s};
    }
  }
  std::string merged = *header + "\n";
  for (const auto& label : shapeOrder) {
    auto it = rowOf.find(label);
    if (it == rowOf.end()) return MergeError{"no shard wrote a row for shape '" + label + "'"};
    merged += it->second.first + "\n";
  }
  return merged;
}

std::variant<std::string, MergeError> mergeSamples(const std::vector<std::string>& shapeOrder,
                                                   const std::vector<std::string>& shardSamples) {
  if (shardSamples.empty()) return MergeError{"no shard samples files to merge"};
  std::string headerLine;
  nlohmann::json header;
  std::map<std::string, std::vector<std::string>> linesOf;  // label -> sample lines, in order
  std::map<std::string, std::size_t> shardOf;
  const std::set<std::string> wanted(shapeOrder.begin(), shapeOrder.end());
  for (std::size_t s = 0; s < shardSamples.size(); ++s) {
    const std::string tag = "shard " + std::to_string(s);
    const auto ls = lines(shardSamples[s]);
    if (ls.empty()) return MergeError{tag + " wrote an empty samples file (no header line)"};
    const nlohmann::json h = util::parseJsonText(ls[0]).value_or(nlohmann::json());
    if (!h.is_object() || !h.contains("kopt_samples")) {
      return MergeError{tag + "'s samples file does not start with a {\"kopt_samples\":...} header"};
    }
    if (s == 0) {
      headerLine = ls[0];
      header = h;
    } else {
      for (const char* key : {"kopt_samples", "harness", "device", "seed"}) {
        if (h.value(key, nlohmann::json()) != header.value(key, nlohmann::json())) {
          return MergeError{tag + "'s samples header has " + key + "=" + h.value(key, nlohmann::json()).dump() +
                            " but shard 0's has " + header.value(key, nlohmann::json()).dump() +
                            " (every shard must run the same harness, seed and device model)"};
        }
      }
    }
    for (std::size_t i = 1; i < ls.size(); ++i) {
      if (ls[i].empty()) continue;
      nlohmann::json row = util::parseJsonText(ls[i]).value_or(nlohmann::json());
      if (!row.is_object() || !row.contains("label") || !row["label"].is_string()) {
        return MergeError{tag + "'s samples line " + std::to_string(i + 1) + " is not an object with a label"};
      }
      const std::string label = row["label"].get<std::string>();
      if (!wanted.count(label)) {
        return MergeError{tag + " wrote samples for '" + label + "', which is not one of its shapes"};
      }
      if (auto it = shardOf.find(label); it != shardOf.end() && it->second != s) {
        return MergeError{"shape '" + label + "' has samples from shards " + std::to_string(it->second) + " and " +
                          std::to_string(s)};
      }
      shardOf[label] = s;
      linesOf[label].push_back(ls[i]);
    }
  }
  std::string merged = headerLine + "\n";
  for (const auto& label : shapeOrder) {
    for (const auto& l : linesOf[label]) merged += l + "\n";
  }
  return merged;
}

ShardedRunResult runSharded(Executor& executor, const ShardedRunSpec& spec, const RunObserver& observer) {
  const auto start = Clock::now();
  ShardedRunResult result;
  auto refuse = [&](std::string why) {
    result.overall.outcome = RunOutcome::FailedToStart;
    result.overall.error = why;
    result.error = std::move(why);
    return result;
  };
  if (spec.base.argv.empty()) return refuse("sharded run: the bench command (base.argv) is empty");
  if (spec.shapes.empty()) return refuse("sharded run: no shapes to run");
  if (spec.devices.empty()) return refuse("sharded run: no devices to shard across");
  if (spec.summaryCsv.empty()) return refuse("sharded run: no path for the merged summary CSV");
  if (spec.workDir.empty()) return refuse("sharded run: no work directory for the shard files");
  {
    std::set<std::string> seen;
    for (const auto& s : spec.shapes) {
      if (!seen.insert(s).second) return refuse("sharded run: shape '" + s + "' is listed twice");
    }
  }
  std::error_code ec;
  fs::create_directories(spec.workDir, ec);
  if (ec) return refuse("sharded run: cannot create '" + spec.workDir.string() + "': " + ec.message());

  const auto plan = splitShapes(spec.shapes, spec.devices.size());
  std::vector<CommandSpec> specs;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const std::string stem = "shard-" + std::to_string(i);
    CommandSpec c = spec.base;
    const fs::path csv = spec.workDir / (stem + ".csv");
    const fs::path samples = spec.workDir / (stem + ".samples.jsonl");
    fs::remove(csv, ec);  // a stale table from an earlier run must never be merged
    fs::remove(samples, ec);
    c.argv.insert(c.argv.end(), {"--summary-csv", csv.string()});
    if (!spec.samples.empty()) c.argv.insert(c.argv.end(), {"--samples", samples.string()});
    c.argv.insert(c.argv.end(), {"--shapes", join(plan[i], ",")});
    if (spec.seed) c.argv.insert(c.argv.end(), {"--seed", std::to_string(*spec.seed)});
    c.stdoutPath = spec.workDir / (stem + ".log");
    c.stderrPath.clear();
    if (spec.binding == DeviceBinding::VisibleDevicesEnv) {
      c.env["CUDA_VISIBLE_DEVICES"] = spec.devices[i];
      c.env["HIP_VISIBLE_DEVICES"] = spec.devices[i];
    }
    specs.push_back(std::move(c));
    result.shards.push_back(ShardOutcome{spec.devices[i], plan[i], RunResult{}});
  }

  // One token for all shards: the caller's cancel and the first failure both stop every shard.
  CancellationToken stopAll;
  std::mutex m;
  std::condition_variable cv;
  std::size_t running = specs.size();
  std::optional<std::size_t> firstFailure;
  std::vector<std::uintmax_t> bytes(specs.size(), 0);
  std::string lastLine;
  std::mutex progressMutex;  // the caller's callback is never called from two shards at once

  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    threads.emplace_back([&, i] {
      RunObserver o;
      o.cancel = stopAll;
      if (observer.onProgress) {
        o.onProgress = [&, i](const RunProgress& p) {
          std::lock_guard<std::mutex> lock(progressMutex);
          bytes[i] = p.outputBytes;
          if (!p.lastLine.empty()) lastLine = p.lastLine;
          RunProgress total;
          total.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
          for (auto b : bytes) total.outputBytes += b;
          total.lastLine = lastLine;
          observer.onProgress(total);
        };
      }
      RunResult r = executor.run(specs[i], o);
      std::lock_guard<std::mutex> lock(m);
      if (!r.ok() && !firstFailure && !(r.outcome == RunOutcome::Cancelled && stopAll.cancelled())) {
        firstFailure = i;
        stopAll.cancel();
      }
      result.shards[i].result = std::move(r);
      --running;
      cv.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(m);
    while (running > 0) {
      cv.wait_for(lock, 50ms);
      if (observer.cancel.cancelled()) stopAll.cancel();
    }
  }
  for (auto& t : threads) t.join();

  // One log for the caller: every shard's output, in shard order.
  if (!spec.base.stdoutPath.empty()) {
    std::string log;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      log += "==> shard " + std::to_string(i) + " on device " + result.shards[i].device + " (shapes " +
             join(result.shards[i].shapes, ",") + "): " + toString(result.shards[i].result.outcome) + " <==\n";
      log += readWhole(specs[i].stdoutPath).value_or("");
      if (!log.empty() && log.back() != '\n') log += "\n";
    }
    std::string err;
    writeAtomically(spec.base.stdoutPath, log, err);
  }

  auto finish = [&](RunResult overall, std::string error) {
    result.overall = std::move(overall);
    result.overall.wallTime = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    result.error = std::move(error);
    if (!result.error.empty() && result.overall.error.empty()) result.overall.error = result.error;
    return result;
  };
  auto describe = [&](std::size_t i) {
    return "shard " + std::to_string(i) + " on device " + result.shards[i].device + " (shapes " +
           join(result.shards[i].shapes, ",") + ")";
  };

  bool anyFailed = false;
  for (const auto& sh : result.shards) anyFailed = anyFailed || !sh.result.ok();
  if (anyFailed) {  // (a cancel that came after every shard finished changes nothing)
    std::size_t i = firstFailure.value_or(0);
    if (!firstFailure) {  // cancelled by the caller: report a shard that was actually stopped
      while (i + 1 < result.shards.size() && result.shards[i].result.ok()) ++i;
    }
    RunResult r = result.shards[i].result;
    const std::string why = describe(i) + ": " + (r.error.empty() ? std::string(toString(r.outcome)) : r.error);
    r.error = why;
    return finish(r, why);
  }

  std::vector<std::string> csvs, samples;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    auto csv = readWhole(spec.workDir / ("shard-" + std::to_string(i) + ".csv"));
    if (!csv) return finish(result.shards[i].result, describe(i) + " exited 0 but wrote no summary CSV");
    csvs.push_back(std::move(*csv));
    if (!spec.samples.empty()) {
      auto s = readWhole(spec.workDir / ("shard-" + std::to_string(i) + ".samples.jsonl"));
      if (!s) return finish(result.shards[i].result, describe(i) + " exited 0 but wrote no samples file");
      samples.push_back(std::move(*s));
    }
  }
  RunResult allOk;
  allOk.outcome = RunOutcome::Exited;
  allOk.exitCode = 0;
  auto mergedCsv = mergeSummaryCsv(spec.shapes, csvs);
  if (auto* e = std::get_if<MergeError>(&mergedCsv)) return finish(allOk, "merging the shard CSVs: " + e->message);
  std::string mergedSamples;
  if (!spec.samples.empty()) {
    auto m2 = mergeSamples(spec.shapes, samples);
    if (auto* e = std::get_if<MergeError>(&m2)) return finish(allOk, "merging the shard samples: " + e->message);
    mergedSamples = std::get<std::string>(m2);
  }
  std::string err;
  if (!writeAtomically(spec.summaryCsv, std::get<std::string>(mergedCsv), err)) return finish(allOk, err);
  if (!spec.samples.empty() && !writeAtomically(spec.samples, mergedSamples, err)) return finish(allOk, err);
  return finish(allOk, "");
}

}  // namespace kopt::exec
