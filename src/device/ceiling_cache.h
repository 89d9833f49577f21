#pragma once
// Ceilings measured on this machine (a large device copy, a large vendor-library matmul), kept in
// a JSON file so that each machine is measured once and every later speed-of-light check uses the
// same numbers. One file holds many machines, keyed by host, PCI location and device name.
//
// File: $KOPT_CACHE_DIR/ceilings.json, else $XDG_CACHE_HOME/kopt/ceilings.json, else
// ~/.cache/kopt/ceilings.json. Shape: {"kopt_ceilings": 1, "machines": {"<key>": {...}}}.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "device/device_info.h"

namespace kopt::device {

struct Ceilings {
  std::optional<double> copyGBps;
  std::string copyMethod;        // or the reason the copy was not measured
  std::optional<double> matmulBf16Tflops;
  std::string matmulMethod;
  std::string measuredAt;        // UTC, "YYYY-MM-DDTHH:MM:SSZ"
  std::string deviceName;
  std::string driverVersion;
};

nlohmann::json toJson(const Ceilings& ceilings);
// nullopt (with `error` naming the field) when the object is not a ceilings record.
std::optional<Ceilings> ceilingsFromJson(const nlohmann::json& value, std::string* error);

std::string machineKey(const DeviceInfo& info, const std::string& hostname);
std::string currentHostname();
std::string utcTimestamp();
std::filesystem::path defaultCeilingCachePath();

class CeilingCache {
 public:
  explicit CeilingCache(std::filesystem::path file) : file_(std::move(file)) {}
  const std::filesystem::path& file() const { return file_; }

  // nullopt when the file or the key is absent. A file that is not a ceilings cache is reported
  // through `error` and treated as empty (store() then replaces it).
  std::optional<Ceilings> find(const std::string& key, std::string* error = nullptr) const;

  // Adds or replaces the key's record; writes a temporary file and renames it over the old one, so
  // a reader never sees half a file. false (with `error`) when the directory cannot be written.
  bool store(const std::string& key, const Ceilings& ceilings, std::string* error);

 private:
  nlohmann::json load(std::string* error) const;
  std::filesystem::path file_;
};

}  // namespace kopt::device
