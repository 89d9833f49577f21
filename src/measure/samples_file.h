#pragma once
// The raw-sample side file a harness writes with --samples (JSON Lines, shared formats): line 1 a
// header object, then one object per (shape, direction) with every timed call in ms. The CSV stays
// byte-identical to the frozen schema; statistics are computed from these samples.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kopt::measure {

enum class Direction { Forward, Backward };
const char* toString(Direction direction);  // "forward" | "backward"

// Why the harness stopped sampling a shape: the noise target was met, or a cap was hit first.
enum class StopReason { Rsd, TimeCap, MaxSamples };
const char* toString(StopReason reason);  // "rsd" | "time_cap" | "max_samples"

struct SamplesHeader {
  int version = 1;  // "kopt_samples"
  std::string harness;
  std::string device;
  std::uint64_t seed = 0;
  std::string hooks;  // the Python harness's fingerprint of the kernel module's hooks ("" when none)
};

struct SampleSeries {
  std::string label;
  Direction direction = Direction::Forward;
  std::vector<double> timesMs;  // per call, > 0 and finite (checked)
  std::optional<double> flops;  // work of one call, when the op counts FLOPs
  std::optional<double> bytes;  // bytes moved by one call, when the op counts bytes
  StopReason stop = StopReason::Rsd;
  std::size_t line = 0;

  double medianMs() const;
  // Relative spread of the samples: 100 * stddev / mean.
  double rsdPercent() const;
};

struct SamplesFile {
  SamplesHeader header;
  std::vector<SampleSeries> series;  // file order
  const SampleSeries* find(std::string_view label, Direction direction) const;
};

struct SamplesError {
  std::size_t line = 0;  // 1-based; 0 for "whole file"
  std::string field;     // the JSON key at fault, "" when none
  std::string message;
  std::string toString() const;
};

using SamplesResult = std::variant<SamplesFile, SamplesError>;

SamplesResult parseSamplesFile(std::string_view text);

}  // namespace kopt::measure
