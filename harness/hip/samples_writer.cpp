#include "harness/hip/samples_writer.h"

#include <cmath>
#include <cstdio>

namespace kopt::hipbench {

std::string jsonEscape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

namespace {
// JSON has no NaN/Inf: a non-finite number becomes null (it never reaches here for times, which
// come from device events and are checked positive by the driver).
std::string jsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}
std::string optionalNumber(const std::optional<double>& v) { return v ? jsonNumber(*v) : "null"; }
}  // namespace

std::string samplesFileText(const std::string& harness, const std::string& device, std::uint64_t seed,
                            const std::vector<SampleSeries>& series) {
  std::string out = "{\"kopt_samples\":1,\"harness\":\"" + jsonEscape(harness) + "\",\"device\":\"" + jsonEscape(device) +
                    "\",\"seed\":" + std::to_string(seed) + "}\n";
  for (const auto& s : series) {
    out += "{\"label\":\"" + jsonEscape(s.label) + "\",\"direction\":\"" + (s.forward ? "forward" : "backward") +
           "\",\"unit\":\"ms\",\"times\":[";
    for (std::size_t i = 0; i < s.timesMs.size(); ++i) {
      if (i) out += ',';
      out += jsonNumber(s.timesMs[i]);
    }
    out += "],\"flops\":" + optionalNumber(s.flops) + ",\"bytes\":" + optionalNumber(s.bytes) + ",\"stop\":\"" +
           stopReasonName(s.stop) + "\"}\n";
  }
  return out;
}

}  // namespace kopt::hipbench
