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

bool SpareWorkers::settle(std::chrono::milliseconds timeout, const CancellationToken& cancel,
                          const std::optional<WarmRequest>& warm) {
  std::lock_guard<std::mutex> lock(mutex_);
  // First every unsettled spare's hello, each warm sent as soon as its hello is in (the spares
  // warm while the next one is asked), then the warms' replies.
  std::vector<bool> ready(spares_.size(), false), warming(spares_.size(), false);
  for (std::size_t i = 0; i < spares_.size(); ++i) {
    Spare& spare = spares_[i];
    if (spare.settled) continue;  // stopped by an earlier look and not resumed since
    BenchWorker& worker = *spare.worker;
    auto hello = cancel.cancelled() ? WorkerReply<WorkerHello>(WorkerFailure{WorkerFailureKind::Cancelled, ""})
                                    : worker.hello(timeout, cancel);
    ready[i] = hello.index() == 0;
    if (ready[i] && warm && std::get<WorkerHello>(hello).warms && !worker.warmed()) {
      ready[i] = !worker.startWarm(*warm);
      warming[i] = ready[i];
    }
  }
  for (std::size_t i = 0; i < spares_.size(); ++i) {
    if (!warming[i]) continue;
    auto reply = spares_[i].worker->finishWarm(timeout, cancel);
    // A refusal leaves the spare usable (its prepare will say what is wrong); anything else ends it.
    if (auto* f = std::get_if<WorkerFailure>(&reply); f && !f->workerUsable()) ready[i] = false;
  }
  std::vector<Spare> kept;
  for (std::size_t i = 0; i < spares_.size(); ++i) {
    Spare& spare = spares_[i];
    BenchWorker& worker = *spare.worker;
    if (!spare.settled && ready[i] && !cancel.cancelled()) {
      worker.process().stop();
      // Stopped means every process of its session (a spare runs the kernel's module code too).
      spare.settled = worker.process().allStopped();
    }
    if (spare.settled) {
      kept.push_back(std::move(spare));
    } else {
      end(worker);
    }
  }
  spares_ = std::move(kept);
  return !cancel.cancelled();
}

std::vector<pid_t> SpareWorkers::pids() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<pid_t> out;
  for (const auto& s : spares_) out.push_back(s.worker->process().pid());
  return out;
}

}  // namespace kopt::campaign
