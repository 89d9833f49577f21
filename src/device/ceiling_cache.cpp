#include "device/ceiling_cache.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#include "util/json_text.h"

namespace kopt::device {

namespace {
constexpr int kFormatVersion = 1;

nlohmann::json optionalNumber(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

bool readOptionalNumber(const nlohmann::json& object, const char* field, std::optional<double>* out, std::string* error) {
  if (!object.contains(field) || object[field].is_null()) return true;
  if (!object[field].is_number()) {
    if (error) *error = std::string("field '") + field + "' must be a number or null";
    return false;
  }
  *out = object[field].get<double>();
  return true;
}

std::string readString(const nlohmann::json& object, const char* field) {
  auto it = object.find(field);
  return (it != object.end() && it->is_string()) ? it->get<std::string>() : std::string{};
}
}  // namespace

nlohmann::json toJson(const Ceilings& c) {
  return {
      {"copy_gbps", optionalNumber(c.copyGBps)},
      {"copy_method", c.copyMethod},
      {"matmul_bf16_tflops", optionalNumber(c.matmulBf16Tflops)},
      {"matmul_method", c.matmulMethod},
      {"measured_at", c.measuredAt},
      {"device_name", c.deviceName},
      {"driver_version", c.driverVersion},
  };
}

std::optional<Ceilings> ceilingsFromJson(const nlohmann::json& value, std::string* error) {
  if (!value.is_object()) {
    if (error) *error = "a ceilings record must be a JSON object";
    return std::nullopt;
  }
  Ceilings c;
  if (!readOptionalNumber(value, "copy_gbps", &c.copyGBps, error)) return std::nullopt;
  if (!readOptionalNumber(value, "matmul_bf16_tflops", &c.matmulBf16Tflops, error)) return std::nullopt;
  c.copyMethod = readString(value, "copy_method");
  c.matmulMethod = readString(value, "matmul_method");
  c.measuredAt = readString(value, "measured_at");
  c.deviceName = readString(value, "device_name");
  c.driverVersion = readString(value, "driver_version");
  return c;
}

std::string machineKey(const DeviceInfo& info, const std::string& hostname) {
  return hostname + "|" + (info.pciBusId.empty() ? "device" + std::to_string(info.index) : info.pciBusId) + "|" +
         info.name;
}

std::string currentHostname() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown-host";
  return name;
}

std::string utcTimestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::filesystem::path defaultCeilingCachePath() {
  if (const char* dir = std::getenv("KOPT_CACHE_DIR"); dir && *dir) return std::filesystem::path(dir) / "ceilings.json";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "kopt" / "ceilings.json";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "kopt" / "ceilings.json";
  return std::filesystem::temp_directory_path() / "kopt" / "ceilings.json";
}

nlohmann::json CeilingCache::load(std::string* error) const {
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) return nlohmann::json::object();  // none yet, or unreadable: measure
  nlohmann::json doc = util::readJsonFile(file_).value_or(nlohmann::json());
  if (!doc.is_object() || !doc.contains("machines") || !doc["machines"].is_object()) {
    if (error) *error = file_.string() + " is not a kopt ceilings cache (expected {\"kopt_ceilings\":1,\"machines\":{...}}); ignoring it";
    return nlohmann::json::object();
  }
  return doc;
}

std::optional<Ceilings> CeilingCache::find(const std::string& key, std::string* error) const {
  const nlohmann::json doc = load(error);
  if (!doc.contains("machines")) return std::nullopt;
  const auto& machines = doc["machines"];
  auto it = machines.find(key);
  if (it == machines.end()) return std::nullopt;
  std::string why;
  auto ceilings = ceilingsFromJson(*it, &why);
  if (!ceilings && error) *error = file_.string() + ": record '" + key + "': " + why;
  return ceilings;
}

bool CeilingCache::store(const std::string& key, const Ceilings& ceilings, std::string* error) {
  std::string ignored;
  nlohmann::json doc = load(&ignored);
  if (!doc.contains("machines")) doc = {{"kopt_ceilings", kFormatVersion}, {"machines", nlohmann::json::object()}};
  doc["machines"][key] = toJson(ceilings);

  std::error_code ec;
  if (file_.has_parent_path()) std::filesystem::create_directories(file_.parent_path(), ec);
  if (ec) {
    if (error) *error = "cannot create " + file_.parent_path().string() + ": " + ec.message();
    return false;
  }
  const std::filesystem::path temp = file_.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << doc.dump(2) << '\n';
    out.flush();
    if (!out) {
      if (error) *error = "cannot write " + temp.string();
      std::filesystem::remove(temp, ec);
      return false;
    }
  }
  std::filesystem::rename(temp, file_, ec);
  if (ec) {
    if (error) *error = "cannot replace " + file_.string() + ": " + ec.message();
    std::filesystem::remove(temp, ec);
    return false;
  }
  return true;
}

}  // namespace kopt::device
