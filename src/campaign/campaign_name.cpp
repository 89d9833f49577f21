#include "campaign/campaign_name.h"

#include <cctype>
#include <stdexcept>

#include "util/text.h"
#include "util/time_format.h"

namespace kopt::campaign {

std::string sanitizeNamePart(std::string_view part) {
  std::string out;
  bool pendingSep = false;
  for (char c : part) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) && u < 0x80) {
      if (pendingSep && !out.empty()) out.push_back('_');
      pendingSep = false;
      out.push_back(static_cast<char>(std::tolower(u)));
    } else {
      // '_' and everything else separate words; runs collapse into one '_'.
      pendingSep = true;
    }
  }
  if (out.size() > 64) out.resize(64);
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "x" : out;
}

std::string campaignName(std::string_view op, Backend backend, std::string_view gpu,
                         std::string_view yyyymmdd) {
  bool dateOk = yyyymmdd.size() == 8;
  for (char c : yyyymmdd) dateOk = dateOk && std::isdigit(static_cast<unsigned char>(c));
  if (!dateOk) {
    throw std::invalid_argument("campaign date must be YYYYMMDD, got '" + std::string(yyyymmdd) + "'");
  }
  return sanitizeNamePart(op) + "_" + backendLower(backend) + "_" + sanitizeNamePart(gpu) + "_" +
         std::string(yyyymmdd);
}

std::string campaignName(const Manifest& m) {
  std::string date;
  if (m.created.size() >= 10) {
    date = m.created.substr(0, 4) + m.created.substr(5, 2) + m.created.substr(8, 2);
  } else {
    date = util::formatCompactDate(std::chrono::system_clock::now());
  }
  return campaignName(m.targetOp, m.targetBackend, m.targetGpu, date);
}

bool isValidCampaignName(std::string_view name) {
  if (name.empty() || name.size() > 128 || name[0] == '_' || name[0] == '.') return false;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!(std::islower(u) || std::isdigit(u) || c == '_') || u >= 0x80) return false;
  }
  return true;
}

}  // namespace kopt::campaign
