#include "measure/samples_file.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "util/json_text.h"

namespace kopt::measure {

namespace {

using json = nlohmann::json;

SamplesError fail(std::size_t line, std::string field, std::string message) {
  return SamplesError{line, std::move(field), std::move(message)};
}

std::string typeName(const json& v) { return v.type_name(); }

// An optional non-negative number: absent or null -> nullopt.
bool optionalNumber(const json& obj, const char* key, std::optional<double>& out, std::size_t line, SamplesError& err) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    out.reset();
    return true;
  }
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
    err = fail(line, key, std::string("'") + key + "' must be a non-negative number or null, got " + it->dump());
    return false;
  }
  out = it->get<double>();
  return true;
}

}  // namespace

const char* toString(Direction direction) { return direction == Direction::Forward ? "forward" : "backward"; }

const char* toString(StopReason reason) {
  switch (reason) {
    case StopReason::Rsd: return "rsd";
    case StopReason::TimeCap: return "time_cap";
    case StopReason::MaxSamples: return "max_samples";
  }
  return "rsd";
}

double SampleSeries::medianMs() const {
  if (timesMs.empty()) return std::nan("");
  std::vector<double> v = timesMs;
  std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double hi = v[mid];
  if (v.size() % 2) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lo + hi);
}

double SampleSeries::rsdPercent() const {
  if (timesMs.size() < 2) return 0.0;
  double mean = 0;
  for (double t : timesMs) mean += t;
  mean /= static_cast<double>(timesMs.size());
  double ss = 0;
  for (double t : timesMs) ss += (t - mean) * (t - mean);
  double sd = std::sqrt(ss / static_cast<double>(timesMs.size() - 1));
  return mean > 0 ? 100.0 * sd / mean : 0.0;
}

const SampleSeries* SamplesFile::find(std::string_view label, Direction direction) const {
  for (const auto& s : series)
    if (s.direction == direction && s.label == label) return &s;
  return nullptr;
}

std::string SamplesError::toString() const {
  std::string out = line ? "samples line " + std::to_string(line) : std::string("samples file");
  if (!field.empty()) out += ", field '" + field + "'";
  return out + ": " + message;
}

SamplesResult parseSamplesFile(std::string_view text) {
  SamplesFile file;
  std::set<std::pair<std::string, int>> seen;
  std::size_t pos = 0;
  std::size_t lineNo = 0;
  bool haveHeader = false;
  while (pos < text.size()) {
    ++lineNo;
    std::size_t nl = text.find('\n', pos);
    std::string_view line = nl == std::string_view::npos ? text.substr(pos) : text.substr(pos, nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;

    const auto parsed = util::parseJsonText(line);
    if (!parsed) return fail(lineNo, "", "not a JSON object (each line holds one JSON object)");
    const json& obj = *parsed;
    if (!obj.is_object()) return fail(lineNo, "", "expected a JSON object, got " + typeName(obj));

    if (!haveHeader) {
      auto v = obj.find("kopt_samples");
      if (v == obj.end())
        return fail(lineNo, "kopt_samples",
                    "the first line must be the header object {\"kopt_samples\":1,\"harness\":...,\"device\":...,\"seed\":N}");
      if (!v->is_number_integer() || v->get<long long>() != 1)
        return fail(lineNo, "kopt_samples", "unsupported samples format version " + v->dump() + " (this kopt reads 1)");
      file.header.version = 1;
      for (const char* key : {"harness", "device", "hooks"}) {
        auto it = obj.find(key);
        if (it != obj.end() && !it->is_null() && !it->is_string())
          return fail(lineNo, key, std::string("'") + key + "' must be a string");
      }
      file.header.harness = obj.value("harness", json("")).is_string() ? obj.value("harness", std::string()) : "";
      file.header.device = obj.value("device", json("")).is_string() ? obj.value("device", std::string()) : "";
      file.header.hooks = obj.value("hooks", json("")).is_string() ? obj.value("hooks", std::string()) : "";
      auto seed = obj.find("seed");
      if (seed != obj.end() && !seed->is_null()) {
        if (!seed->is_number_unsigned() && !(seed->is_number_integer() && seed->get<long long>() >= 0))
          return fail(lineNo, "seed", "'seed' must be a non-negative integer, got " + seed->dump());
        file.header.seed = seed->get<std::uint64_t>();
      }
      haveHeader = true;
      continue;
    }

    SampleSeries s;
    s.line = lineNo;
    auto label = obj.find("label");
    if (label == obj.end() || !label->is_string() || label->get<std::string>().empty())
      return fail(lineNo, "label", "'label' must be a non-empty string naming the shape");
    s.label = label->get<std::string>();

    auto dir = obj.find("direction");
    if (dir == obj.end() || !dir->is_string())
      return fail(lineNo, "direction", "'direction' must be \"forward\" or \"backward\"");
    if (*dir == "forward") s.direction = Direction::Forward;
    else if (*dir == "backward") s.direction = Direction::Backward;
    else return fail(lineNo, "direction", "'direction' must be \"forward\" or \"backward\", got " + dir->dump());

    auto unit = obj.find("unit");
    if (unit != obj.end() && !(unit->is_string() && *unit == "ms"))
      return fail(lineNo, "unit", "'unit' must be \"ms\", got " + unit->dump());

    auto times = obj.find("times");
    if (times == obj.end() || !times->is_array() || times->empty())
      return fail(lineNo, "times", "'times' must be a non-empty array of per-call milliseconds");
    s.timesMs.reserve(times->size());
    for (std::size_t i = 0; i < times->size(); ++i) {
      const json& t = (*times)[i];
      if (!t.is_number() || !std::isfinite(t.get<double>()) || t.get<double>() <= 0)
        return fail(lineNo, "times",
                    "times[" + std::to_string(i) + "] is " + t.dump() + "; every time must be a positive finite number of ms");
      s.timesMs.push_back(t.get<double>());
    }

    SamplesError err;
    if (!optionalNumber(obj, "flops", s.flops, lineNo, err)) return err;
    if (!optionalNumber(obj, "bytes", s.bytes, lineNo, err)) return err;

    auto stop = obj.find("stop");
    if (stop != obj.end() && !stop->is_null()) {
      if (!stop->is_string()) return fail(lineNo, "stop", "'stop' must be \"rsd\", \"time_cap\" or \"max_samples\"");
      if (*stop == "rsd") s.stop = StopReason::Rsd;
      else if (*stop == "time_cap") s.stop = StopReason::TimeCap;
      else if (*stop == "max_samples") s.stop = StopReason::MaxSamples;
      else return fail(lineNo, "stop", "'stop' must be \"rsd\", \"time_cap\" or \"max_samples\", got " + stop->dump());
    }

    if (!seen.emplace(s.label, static_cast<int>(s.direction)).second)
      return fail(lineNo, "label",
                  "shape '" + s.label + "' direction " + toString(s.direction) + " appears twice; write one line per (shape, direction)");
    file.series.push_back(std::move(s));
  }
  if (!haveHeader) return fail(0, "", "the samples file is empty (expected a header line, then one line per shape and direction)");
  return file;
}

}  // namespace kopt::measure
