#pragma once
// kopt's side of the bench worker protocol (harness/WORKER-PROTOCOL.md): typed requests and replies
// over an exec::WorkerProcess. Every reply is checked field by field; a reply that breaks the
// protocol, a worker that dies or stops answering, is a WorkerFailure that names what happened,
// and the worker is not asked anything again (its state is unknown).
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/worker_process.h"
#include "measure/bench_table.h"
#include "measure/samples_file.h"
#include "util/cancellation.h"

namespace kopt::campaign {

inline constexpr int kWorkerProtocolVersion = 1;

struct WorkerHello {
  int protocol = 0;
  std::string harness;
  std::string device;
  std::string csvHeader;
  std::vector<std::string> shapes;
  std::string hooks;  // the kernel module's hooks fingerprint (harness_hooks.h), "" when the harness has none
  bool warms = false;  // answers the optional 'warm' request (BenchWorker::startWarm)
};

struct PreparedShape {
  std::string shape;
  measure::Check check = measure::Check::Error;
  std::string problem;
  std::map<measure::Direction, double> callMs;  // warm-up estimate of one call per direction
  double stepMs() const;                         // one call of every direction together
  // The config each autotuned kernel ran for this shape (optional "autotune": {kernel: config},
  // harness/WORKER-PROTOCOL.md): what kopt records per arm, so two workers of one tree are seen to
  // agree. At most kMaxAutotuneEntries, each clipped.
  std::map<std::string, std::string> autotune;
  static constexpr std::size_t kMaxAutotuneEntries = 32;
};

// What a warm request asks for: the look's first shape, drawn from `seed`.
struct WarmRequest {
  std::string shape;
  std::uint64_t seed = 0;
};

// A warm request's reply: the shape's full check ran once, untimed, and was thrown away.
struct WarmedShape {
  std::string shape;
  measure::Check check = measure::Check::Error;
  double ms = 0;  // the worker's time on it
};

struct BatchResult {
  std::string shape;
  std::vector<measure::SampleSeries> series;  // labelled with the shape
  long long errors = 0;                       // calls that failed verification
  double wallMs = 0;
  std::optional<double> handleMs;  // the worker's whole time on the request (optional field)
  std::optional<double> idleProbeUs;
  double idleWaitMs = 0;  // how long the worker waited for the GPU to go idle before its calls
  bool gpuBusy = false;   // it did not go idle within the harness's cap: the batch ran on a busy GPU
  // Attempts the worker discarded and ran again on its own evidence (allocator events, a time
  // that is not positive and finite: harness/WORKER-PROTOCOL.md); optional, 0 when absent.
  long long reruns = 0;
};

enum class WorkerFailureKind {
  Refused,    // ok:false: the worker says why and can take the next request
  Broken,     // the reply is not the protocol's (bad JSON, wrong id, a field missing or mistyped)
  Died,       // EOF: the worker exited or crashed
  TimedOut,   // no reply within the request limit
  Cancelled,  // the caller cancelled while waiting
};

struct WorkerFailure {
  WorkerFailureKind kind = WorkerFailureKind::Broken;
  std::string message;
  bool workerUsable() const { return kind == WorkerFailureKind::Refused; }
};

template <typename T>
using WorkerReply = std::variant<T, WorkerFailure>;

// Parsing one reply line against a request id (pure; tested without a process).
WorkerReply<nlohmann::json> parseReplyEnvelope(const std::string& line, long long id);
WorkerReply<WorkerHello> parseHello(const nlohmann::json& reply);
WorkerReply<PreparedShape> parsePrepared(const nlohmann::json& reply, const std::string& shape);
WorkerReply<BatchResult> parseBatch(const nlohmann::json& reply, const std::string& shape, int calls);
WorkerReply<std::string> parseRow(const nlohmann::json& reply, const std::string& shape);
WorkerReply<WarmedShape> parseWarmed(const nlohmann::json& reply, const std::string& shape);

// What a prepare's warm-up measures besides warming up: kopt sizes a shape's batches from the best
// arm's cost of one more call, measured by a long sizing batch. Both arms run it in the same look
// (the candidate's number is not read): the two workers' histories then match, and whatever a
// worker's later batches inherit from them hits both arms alike (harness/WORKER-PROTOCOL.md).
enum class WarmUp { SizeBatches, WarmOnly };

class BenchWorker {
 public:
  // `arm` names the worker in messages ("candidate", "best").
  explicit BenchWorker(std::string arm) : arm_(std::move(arm)) {}
  const std::string& arm() const { return arm_; }

  bool start(const exec::WorkerSpec& spec, std::string& error);
  exec::WorkerProcess& process() { return process_; }

  // The worker's hello, asked once: a spare kept for a later look says it while it waits
  // (spare_workers.h settle()), and that look reads the same reply again.
  WorkerReply<WorkerHello> hello(std::chrono::milliseconds timeout, const CancellationToken& cancel);
  WorkerReply<PreparedShape> prepare(const std::string& shape, std::uint64_t seed, WarmUp warmUp,
                                     std::chrono::milliseconds timeout, const CancellationToken& cancel);
  WorkerReply<BatchResult> batch(const std::string& shape, int calls, std::uint64_t seed,
                                 std::chrono::milliseconds timeout, const CancellationToken& cancel);
  WorkerReply<std::string> row(const std::string& shape, std::chrono::milliseconds timeout,
                               const CancellationToken& cancel);
  // The optional warm request (a worker whose hello has `warms`): the first use of the kernel and
  // of the harness's checks, on `shape`, untimed. Split in two so several workers warm at once:
  // startWarm() sends it (the worker must be running), finishWarm() reads the reply. A warm that
  // was not started is a Broken failure. warmed(): a warm of this worker ended in a reply.
  std::optional<WorkerFailure> startWarm(const WarmRequest& warm);
  WorkerReply<WarmedShape> finishWarm(std::chrono::milliseconds timeout, const CancellationToken& cancel);
  bool warmed() const { return warmed_; }
  // Asks the worker to quit without waiting for it: two workers then tear down (torch and CUDA
  // take about a second) at the same time. close() after it does not ask again.
  void sendQuit();
  // quit, then terminate: the exit description ("exited 0").
  std::string close();

 private:
  struct Pending {
    long long id = 0;
    std::string op;
  };
  // One request in flight at most: send() writes it, receive() reads and checks its reply.
  std::optional<WorkerFailure> send(nlohmann::json request);
  WorkerReply<nlohmann::json> receive(std::chrono::milliseconds timeout, const CancellationToken& cancel);
  WorkerReply<nlohmann::json> call(nlohmann::json request, std::chrono::milliseconds timeout,
                                   const CancellationToken& cancel);
  WorkerFailure fail(WorkerFailureKind kind, const std::string& what);  // marks the worker broken
  std::string arm_;
  exec::WorkerProcess process_;
  long long nextId_ = 1;
  bool broken_ = false;
  bool quitSent_ = false;
  std::optional<Pending> pending_;
  std::optional<WorkerHello> hello_;
  std::string warmShape_;  // the shape of the warm in flight
  bool warmed_ = false;
};

}  // namespace kopt::campaign
