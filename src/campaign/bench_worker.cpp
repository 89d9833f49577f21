#include "campaign/bench_worker.h"

#include <cmath>
#include <optional>

#include "util/json_text.h"
#include "util/text.h"

namespace kopt::campaign {

using json = nlohmann::json;

namespace {

WorkerFailure broken(const std::string& message) { return WorkerFailure{WorkerFailureKind::Broken, message}; }

// Replies are read from a harness that runs the agent's code: cut what is echoed in messages.
std::string clip(const std::string& s) { return util::truncateUtf8(s, 200); }

const json* field(const json& reply, const char* key) {
  auto it = reply.find(key);
  return it == reply.end() ? nullptr : &*it;
}

bool expectShape(const json& reply, const std::string& shape, WorkerFailure& err) {
  const json* s = field(reply, "shape");
  if (!s || !s->is_string() || s->get<std::string>() != shape) {
    err = broken("the reply's 'shape' is " + (s ? clip(s->dump()) : std::string("missing")) + ", expected \"" + shape + "\"");
    return false;
  }
  return true;
}

// The shape a per-shape reply (prepare, warm) names and its "check": the shape must be the one
// asked for and the check PASS, FAIL or ERROR, or the reply is broken.
WorkerReply<measure::Check> shapeCheckOf(const json& reply, const std::string& shape, const char* op) {
  WorkerFailure err;
  if (!expectShape(reply, shape, err)) return err;
  const json* check = field(reply, "check");
  const auto c = check && check->is_string() ? measure::parseCheck(check->get<std::string>()) : std::nullopt;
  if (!c) return broken(std::string(op) + ": 'check' must be PASS, FAIL or ERROR");
  return *c;
}

std::optional<measure::Direction> directionOf(const std::string& name) {
  if (name == "forward") return measure::Direction::Forward;
  if (name == "backward") return measure::Direction::Backward;
  return std::nullopt;
}

}  // namespace

double PreparedShape::stepMs() const {
  double sum = 0;
  for (const auto& [dir, ms] : callMs) sum += ms;
  return sum;
}

WorkerReply<json> parseReplyEnvelope(const std::string& line, long long id) {
  // The candidate's code runs in its worker and can write to the reply channel: whatever it
  // writes is a broken reply, never a crash of kopt (util/json_text.h).
  std::string problem;
  const auto parsed = util::parseJsonText(line, &problem);
  if (!parsed) return broken("the reply is not JSON (" + clip(problem) + "): " + clip(line));
  const json& reply = *parsed;
  if (!reply.is_object()) return broken("the reply is not a JSON object: " + clip(line));
  const json* rid = field(reply, "id");
  if (!rid || !rid->is_number_integer() || rid->get<long long>() != id) {
    return broken("the reply's 'id' is " + (rid ? clip(rid->dump()) : std::string("missing")) + ", expected " +
                  std::to_string(id) + " (one reply per request, in order)");
  }
  const json* ok = field(reply, "ok");
  if (!ok || !ok->is_boolean()) return broken("the reply has no boolean 'ok'");
  if (!ok->get<bool>()) {
    const json* e = field(reply, "error");
    return WorkerFailure{WorkerFailureKind::Refused,
                         e && e->is_string() ? clip(e->get<std::string>()) : std::string("(no error text)")};
  }
  return reply;
}

WorkerReply<WorkerHello> parseHello(const json& reply) {
  WorkerHello h;
  const json* protocol = field(reply, "protocol");
  if (!protocol || !protocol->is_number_integer()) return broken("hello: 'protocol' must be an integer");
  h.protocol = protocol->get<int>();
  if (h.protocol != kWorkerProtocolVersion) {
    return broken("hello: the harness speaks worker protocol " + std::to_string(h.protocol) + ", this kopt speaks " +
                  std::to_string(kWorkerProtocolVersion));
  }
  const json* header = field(reply, "csv_header");
  if (!header || !header->is_string() || header->get<std::string>().empty()) {
    return broken("hello: 'csv_header' must be the harness's CSV header line");
  }
  h.csvHeader = header->get<std::string>();
  const json* shapes = field(reply, "shapes");
  if (!shapes || !shapes->is_array()) return broken("hello: 'shapes' must be an array of shape labels");
  for (const auto& s : *shapes) {
    if (!s.is_string() || s.get<std::string>().empty()) return broken("hello: every entry of 'shapes' must be a label");
    h.shapes.push_back(s.get<std::string>());
  }
  for (const char* key : {"harness", "device"}) {
    const json* v = field(reply, key);
    if (v && v->is_string()) (std::string(key) == "harness" ? h.harness : h.device) = v->get<std::string>();
  }
  if (const json* hooks = field(reply, "hooks")) {
    if (!hooks->is_string()) return broken("hello: 'hooks' must be the harness's fingerprint string");
    h.hooks = hooks->get<std::string>();
  }
  if (const json* warm = field(reply, "warm")) {
    if (!warm->is_boolean()) return broken("hello: 'warm' must be true or false");
    h.warms = warm->get<bool>();
  }
  return h;
}

WorkerReply<PreparedShape> parsePrepared(const json& reply, const std::string& shape) {
  PreparedShape p;
  p.shape = shape;
  const auto check = shapeCheckOf(reply, shape, "prepare");
  if (const auto* f = std::get_if<WorkerFailure>(&check)) return *f;
  p.check = std::get<measure::Check>(check);
  if (const json* problem = field(reply, "problem"); problem && problem->is_string()) p.problem = clip(problem->get<std::string>());
  if (const json* callMs = field(reply, "call_ms"); callMs && callMs->is_object()) {
    for (const auto& [name, v] : callMs->items()) {
      auto dir = directionOf(name);
      if (!dir || !v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) {
        return broken("prepare: 'call_ms' maps forward/backward to positive milliseconds, got " + clip(callMs->dump()));
      }
      p.callMs[*dir] = v.get<double>();
    }
  }
  if (p.check == measure::Check::Pass && p.callMs.empty()) return broken("prepare: a PASS shape needs 'call_ms'");
  if (const json* autotune = field(reply, "autotune"); autotune && !autotune->is_null()) {
    if (!autotune->is_object()) return broken("prepare: 'autotune' maps kernel names to their configs, got " + clip(autotune->dump()));
    for (const auto& [kernel, config] : autotune->items()) {
      if (p.autotune.size() >= PreparedShape::kMaxAutotuneEntries) break;
      p.autotune[clip(kernel)] = config.is_string() ? clip(config.get<std::string>()) : clip(config.dump());
    }
  }
  return p;
}

WorkerReply<BatchResult> parseBatch(const json& reply, const std::string& shape, int calls) {
  BatchResult b;
  b.shape = shape;
  WorkerFailure err;
  if (!expectShape(reply, shape, err)) return err;
  const json* errors = field(reply, "errors");
  if (!errors || !errors->is_number_integer() || errors->get<long long>() < 0) {
    return broken("batch: 'errors' must be a non-negative integer");
  }
  b.errors = errors->get<long long>();
  if (const json* wall = field(reply, "wall_ms"); wall && wall->is_number()) b.wallMs = wall->get<double>();
  if (const json* probe = field(reply, "idle_probe_us"); probe && probe->is_number()) b.idleProbeUs = probe->get<double>();
  if (const json* handle = field(reply, "handle_ms"); handle && handle->is_number()) b.handleMs = handle->get<double>();
  if (const json* wait = field(reply, "idle_wait_ms")) {
    if (!wait->is_number() || !std::isfinite(wait->get<double>()) || wait->get<double>() < 0) {
      return broken("batch: 'idle_wait_ms' must be the non-negative milliseconds the worker waited for an idle GPU");
    }
    b.idleWaitMs = wait->get<double>();
  }
  if (const json* reruns = field(reply, "reruns")) {
    if (!reruns->is_number_integer() || reruns->get<long long>() < 0) {
      return broken("batch: 'reruns' must be the non-negative number of attempts the worker ran again");
    }
    b.reruns = reruns->get<long long>();
  }
  if (const json* busy = field(reply, "gpu_busy")) {
    if (!busy->is_boolean()) return broken("batch: 'gpu_busy' must be true or false");
    b.gpuBusy = busy->get<bool>();
  }
  const json* series = field(reply, "series");
  if (!series || !series->is_array() || series->empty()) return broken("batch: 'series' must be a non-empty array");
  for (const auto& s : *series) {
    if (!s.is_object()) return broken("batch: every 'series' entry must be an object");
    const json* dir = field(s, "direction");
    auto d = dir && dir->is_string() ? directionOf(dir->get<std::string>()) : std::nullopt;
    if (!d) return broken("batch: a series' 'direction' must be \"forward\" or \"backward\"");
    measure::SampleSeries out;
    out.label = shape;
    out.direction = *d;
    const json* times = field(s, "times_ms");
    if (!times || !times->is_array()) return broken("batch: a series needs 'times_ms', an array of per-call milliseconds");
    if (static_cast<int>(times->size()) != calls) {
      return broken("batch: " + std::to_string(times->size()) + " " + dir->get<std::string>() + " times for " +
                    std::to_string(calls) + " requested calls");
    }
    for (const auto& t : *times) {
      if (!t.is_number() || !std::isfinite(t.get<double>()) || t.get<double>() <= 0) {
        return broken("batch: every time must be a positive finite number of ms, got " + clip(t.dump()));
      }
      out.timesMs.push_back(t.get<double>());
    }
    for (const char* key : {"flops", "bytes"}) {
      const json* v = field(s, key);
      if (!v || v->is_null()) continue;
      if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0) {
        return broken(std::string("batch: '") + key + "' must be a non-negative number or null");
      }
      (std::string(key) == "flops" ? out.flops : out.bytes) = v->get<double>();
    }
    for (const auto& other : b.series) {
      if (other.direction == out.direction) return broken("batch: direction " + dir->get<std::string>() + " appears twice");
    }
    b.series.push_back(std::move(out));
  }
  return b;
}

WorkerReply<std::string> parseRow(const json& reply, const std::string& shape) {
  WorkerFailure err;
  if (!expectShape(reply, shape, err)) return err;
  const json* row = field(reply, "row");
  if (!row || !row->is_string() || row->get<std::string>().empty()) return broken("row: 'row' must be the CSV row");
  const std::string text = row->get<std::string>();
  if (text.find('\n') != std::string::npos || text.find('\r') != std::string::npos) {
    return broken("row: the CSV row must be one line");
  }
  return text;
}

WorkerReply<WarmedShape> parseWarmed(const json& reply, const std::string& shape) {
  WarmedShape w;
  w.shape = shape;
  const auto check = shapeCheckOf(reply, shape, "warm");
  if (const auto* f = std::get_if<WorkerFailure>(&check)) return *f;
  w.check = std::get<measure::Check>(check);
  const json* ms = field(reply, "ms");
  if (!ms || !ms->is_number() || !std::isfinite(ms->get<double>()) || ms->get<double>() < 0) {
    return broken("warm: 'ms' must be the non-negative milliseconds the warm took");
  }
  w.ms = ms->get<double>();
  return w;
}

bool BenchWorker::start(const exec::WorkerSpec& spec, std::string& error) {
  broken_ = false;
  warmed_ = false;
  quitSent_ = false;
  nextId_ = 1;
  pending_.reset();
  if (!process_.start(spec)) {
    error = process_.error();
    return false;
  }
  return true;
}

WorkerFailure BenchWorker::fail(WorkerFailureKind kind, const std::string& what) {
  broken_ = true;
  std::string exit;
  if (kind == WorkerFailureKind::Died) exit = process_.terminate(std::chrono::milliseconds(500));
  return WorkerFailure{kind, "the " + arm_ + " worker " + what + (exit.empty() ? "" : " (" + exit + ")")};
}

std::optional<WorkerFailure> BenchWorker::send(json request) {
  if (broken_ || !process_.running()) return WorkerFailure{WorkerFailureKind::Died, "the " + arm_ + " worker is gone"};
  pending_ = Pending{nextId_++, request.value("op", "")};
  request["id"] = pending_->id;
  if (!process_.writeLine(request.dump())) {
    const std::string op = pending_->op;
    pending_.reset();
    return fail(WorkerFailureKind::Died, "closed its input before '" + op + "'");
  }
  return std::nullopt;
}

WorkerReply<json> BenchWorker::receive(std::chrono::milliseconds timeout, const CancellationToken& cancel) {
  if (!pending_) return WorkerFailure{WorkerFailureKind::Broken, "no request to the " + arm_ + " worker is waiting for a reply"};
  const Pending p = *pending_;
  pending_.reset();
  std::string line;
  switch (process_.readLine(line, timeout, cancel)) {
    case exec::LineStatus::Line: break;
    case exec::LineStatus::Eof: return fail(WorkerFailureKind::Died, "died during '" + p.op + "'");
    case exec::LineStatus::TimedOut:
      return fail(WorkerFailureKind::TimedOut,
                  "did not answer '" + p.op + "' within " + std::to_string(timeout.count() / 1000.0).substr(0, 6) + " s");
    case exec::LineStatus::Cancelled: return fail(WorkerFailureKind::Cancelled, "was cancelled during '" + p.op + "'");
    case exec::LineStatus::TooLong: return fail(WorkerFailureKind::Broken, "sent an oversized reply to '" + p.op + "'");
  }
  auto reply = parseReplyEnvelope(line, p.id);
  if (auto* f = std::get_if<WorkerFailure>(&reply); f && !f->workerUsable()) {
    broken_ = true;
    f->message = "the " + arm_ + " worker broke the protocol in '" + p.op + "': " + f->message;
  }
  return reply;
}

WorkerReply<json> BenchWorker::call(json request, std::chrono::milliseconds timeout, const CancellationToken& cancel) {
  if (auto failure = send(std::move(request))) return *failure;
  return receive(timeout, cancel);
}

namespace {

template <typename T, typename Parse>
WorkerReply<T> then(WorkerReply<json> reply, Parse parse, bool& brokenFlag, const std::string& arm) {
  if (auto* f = std::get_if<WorkerFailure>(&reply)) return *f;
  WorkerReply<T> out = parse(std::get<json>(reply));
  if (auto* f = std::get_if<WorkerFailure>(&out)) {
    brokenFlag = true;
    f->message = "the " + arm + " worker broke the protocol: " + f->message;
  }
  return out;
}

}  // namespace

WorkerReply<WorkerHello> BenchWorker::hello(std::chrono::milliseconds timeout, const CancellationToken& cancel) {
  if (hello_) return *hello_;
  auto reply = then<WorkerHello>(call({{"op", "hello"}, {"protocol", kWorkerProtocolVersion}}, timeout, cancel),
                                 [](const json& r) { return parseHello(r); }, broken_, arm_);
  if (auto* h = std::get_if<WorkerHello>(&reply)) hello_ = *h;
  return reply;
}

WorkerReply<PreparedShape> BenchWorker::prepare(const std::string& shape, std::uint64_t seed, WarmUp warmUp,
                                                std::chrono::milliseconds timeout, const CancellationToken& cancel) {
  const json request{{"op", "prepare"},
                     {"shape", shape},
                     {"seed", std::to_string(seed)},
                     {"sizing", warmUp == WarmUp::SizeBatches}};
  return then<PreparedShape>(call(request, timeout, cancel),
                             [&](const json& r) { return parsePrepared(r, shape); }, broken_, arm_);
}

WorkerReply<BatchResult> BenchWorker::batch(const std::string& shape, int calls, std::uint64_t seed,
                                            std::chrono::milliseconds timeout, const CancellationToken& cancel) {
  return then<BatchResult>(
      call({{"op", "batch"}, {"shape", shape}, {"calls", calls}, {"seed", std::to_string(seed)}}, timeout, cancel),
      [&](const json& r) { return parseBatch(r, shape, calls); }, broken_, arm_);
}

WorkerReply<std::string> BenchWorker::row(const std::string& shape, std::chrono::milliseconds timeout,
                                          const CancellationToken& cancel) {
  return then<std::string>(call({{"op", "row"}, {"shape", shape}}, timeout, cancel),
                           [&](const json& r) { return parseRow(r, shape); }, broken_, arm_);
}

std::optional<WorkerFailure> BenchWorker::startWarm(const WarmRequest& warm) {
  warmShape_ = warm.shape;
  return send({{"op", "warm"}, {"shape", warm.shape}, {"seed", std::to_string(warm.seed)}});
}

WorkerReply<WarmedShape> BenchWorker::finishWarm(std::chrono::milliseconds timeout, const CancellationToken& cancel) {
  if (!pending_ || pending_->op != "warm") {
    return WorkerFailure{WorkerFailureKind::Broken, "no warm request to the " + arm_ + " worker is waiting for a reply"};
  }
  auto reply = then<WarmedShape>(receive(timeout, cancel), [&](const json& r) { return parseWarmed(r, warmShape_); },
                                 broken_, arm_);
  if (std::holds_alternative<WarmedShape>(reply)) warmed_ = true;
  return reply;
}

void BenchWorker::sendQuit() {
  if (quitSent_ || broken_ || !process_.running()) return;
  quitSent_ = true;
  process_.resume();
  process_.writeLine(json{{"op", "quit"}, {"id", nextId_++}}.dump());
}

std::string BenchWorker::close() {
  if (!process_.running()) return process_.exitDescription();
  sendQuit();
  return process_.terminate(std::chrono::milliseconds(2000));
}

}  // namespace kopt::campaign
