#include "campaign/spare_workers.h"

#include <chrono>
#include <filesystem>
#include <system_error>

namespace kopt::campaign {

namespace fs = std::filesystem;

namespace {

// A spare holds nothing worth a clean quit: it has answered no request.
void end(BenchWorker& worker) { worker.process().terminate(std::chrono::milliseconds(0)); }

}  // namespace

bool sameWorker(const exec::WorkerSpec& a, const exec::WorkerSpec& b) {
  return a.argv == b.argv && a.env == b.env && a.cwd == b.cwd;
}

SpareWorkers& SpareWorkers::shared() {
  static SpareWorkers* spares = new SpareWorkers();
  return *spares;
}

bool SpareWorkers::offer(const std::string& arm, const exec::WorkerSpec& spec, const std::string& identity,
                         std::string& error, const std::string& look) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = spares_.begin(); it != spares_.end();) {
    if (it->arm == arm && it->look == look) {
      end(*it->worker);
      it = spares_.erase(it);
    } else {
      ++it;
    }
  }
  auto worker = std::make_unique<BenchWorker>(arm);
  if (!worker->start(spec, error)) return false;
  spares_.push_back(Spare{arm, look, spec, identity, std::move(worker)});
  return true;
}

std::unique_ptr<BenchWorker> SpareWorkers::take(const std::string& arm, const exec::WorkerSpec& spec,
                                                const std::string& identity, const std::string& look) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = spares_.begin(); it != spares_.end(); ++it) {
    if (it->arm != arm || (!it->look.empty() && it->look != look)) continue;
    if (it->identity != identity || !sameWorker(it->spec, spec)) continue;
    std::unique_ptr<BenchWorker> worker = std::move(it->worker);
    const fs::path from = it->spec.stderrPath;
    spares_.erase(it);
    // The look's records name its log: the spare's file moves there (the worker keeps writing to
    // it through its open descriptor).
    std::error_code ec;
    if (from != spec.stderrPath) {
      fs::create_directories(spec.stderrPath.parent_path(), ec);
      fs::rename(from, spec.stderrPath, ec);
    }
    if (ec) {
      end(*worker);
      return nullptr;
    }
    return worker;
  }
  return nullptr;
}

void SpareWorkers::clear(const std::function<bool(const std::string& look)>& keep) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = spares_.begin(); it != spares_.end();) {
    if (keep && !it->look.empty() && keep(it->look)) {
      ++it;
      continue;
    }
    end(*it->worker);
    it = spares_.erase(it);
  }
}

bool SpareWorkers::settle(std::chrono::milliseconds timeout, const CancellationToken& cancel) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = spares_.begin(); it != spares_.end();) {
    BenchWorker& worker = *it->worker;
    if (it->settled) {  // stopped by an earlier look and not resumed since
      ++it;
      continue;
    }
    const bool ready = !cancel.cancelled() && worker.hello(timeout, cancel).index() == 0;
    if (ready) worker.process().stop();
    // Stopped means every process of its session (a spare runs the kernel's module code too).
    if (ready && worker.process().allStopped()) {
      it->settled = true;
      ++it;
      continue;
    }
    end(worker);
    it = spares_.erase(it);
  }
  return !cancel.cancelled();
}

std::vector<pid_t> SpareWorkers::pids() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<pid_t> out;
  for (const auto& s : spares_) out.push_back(s.worker->process().pid());
  return out;
}

}  // namespace kopt::campaign
