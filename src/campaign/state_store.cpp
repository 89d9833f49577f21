#include "campaign/state_store.h"

#include "util/atomic_file.h"
#include "util/json_text.h"

namespace kopt::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

bool CampaignState::operator==(const CampaignState& o) const {
  return version == o.version && phase == o.phase && confirmedBy == o.confirmedBy &&
         lastRound == o.lastRound && openRound == o.openRound && bestRound == o.bestRound &&
         bestCommit == o.bestCommit && baselineCommit == o.baselineCommit &&
         consecutiveRollbacks == o.consecutiveRollbacks && pending == o.pending &&
         frozen == o.frozen && ledgerSeq == o.ledgerSeq;
}

json toJson(const CampaignState& s) {
  json j;
  j["version"] = s.version;
  j["phase"] = toString(s.phase);
  j["confirmed_by"] = s.confirmedBy;
  j["last_round"] = s.lastRound;
  if (s.openRound) {
    j["open_round"] = {{"number", s.openRound->number},
                       {"lineage_head", s.openRound->lineageHead},
                       {"declared_files", s.openRound->declaredFiles},
                       {"config_only", s.openRound->configOnly}};
  } else {
    j["open_round"] = nullptr;
  }
  j["best_round"] = s.bestRound ? json(*s.bestRound) : json(nullptr);
  j["best_commit"] = s.bestCommit;
  j["baseline_commit"] = s.baselineCommit;
  j["consecutive_rollbacks"] = s.consecutiveRollbacks;
  if (s.pending) {
    j["pending"] = {{"round", s.pending->round},
                    {"step", s.pending->step},
                    {"started_at", s.pending->startedAt},
                    {"detail", pendingDetailToJson(*s.pending)}};
  } else {
    j["pending"] = nullptr;
  }
  j["frozen"] = s.frozen.toJson();
  j["ledger_seq"] = s.ledgerSeq;
  return j;
}

namespace {

struct FieldReader {
  const json& j;
  std::string prefix;
  std::string error;

  const json* get(const char* key, bool required = true) {
    if (!error.empty()) return nullptr;
    auto it = j.find(key);
    if (it == j.end()) {
      if (required) error = "field '" + prefix + key + "' is missing";
      return nullptr;
    }
    return &*it;
  }
  void bad(const char* key, const char* expected) {
    if (error.empty()) error = "field '" + prefix + key + "' must be " + expected;
  }
  template <typename T>
  void read(const char* key, T& out, const char* expected, bool required = true) {
    const json* v = get(key, required);
    if (!v) return;
    if constexpr (std::is_same_v<T, std::string>) {
      if (!v->is_string()) return bad(key, expected);
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!v->is_boolean()) return bad(key, expected);
    } else {
      if (!v->is_number_integer() && !v->is_number_unsigned()) return bad(key, expected);
      if (v->is_number_integer() && v->template get<long long>() < 0) return bad(key, expected);
    }
    out = v->template get<T>();
  }
};

}  // namespace

std::variant<CampaignState, std::string> campaignStateFromJson(const json& j) {
  if (!j.is_object()) return std::string("state.json: expected a JSON object");
  CampaignState s;
  FieldReader r{j, "", ""};
  r.read("version", s.version, "a whole number");
  if (r.error.empty() && s.version != 1) {
    return "state.json: field 'version': " + std::to_string(s.version) +
           " is not supported (this kopt writes version 1)";
  }
  if (const json* ph = r.get("phase")) {
    if (!ph->is_string()) {
      r.bad("phase", "a string");
    } else if (auto p = phaseFromString(ph->get<std::string>())) {
      s.phase = *p;
    } else {
      r.error = "field 'phase': '" + ph->get<std::string>() + "' is not a phase (one of " +
                std::string(allPhaseNames()) + ")";
    }
  }
  r.read("confirmed_by", s.confirmedBy, "a string", false);
  r.read("last_round", s.lastRound, "a non-negative whole number");
  if (const json* orj = r.get("open_round", false); orj && !orj->is_null()) {
    if (!orj->is_object()) {
      r.bad("open_round", "an object or null");
    } else {
      OpenRound o;
      FieldReader rr{*orj, "open_round.", ""};
      rr.read("number", o.number, "a whole number");
      rr.read("lineage_head", o.lineageHead, "a string");
      rr.read("config_only", o.configOnly, "true or false");
      if (const json* df = rr.get("declared_files")) {
        if (!df->is_array()) {
          rr.bad("declared_files", "a list of strings");
        } else {
          for (const auto& f : *df) {
            if (!f.is_string()) {
              rr.bad("declared_files", "a list of strings");
              break;
            }
            o.declaredFiles.push_back(f.get<std::string>());
          }
        }
      }
      if (!rr.error.empty() && r.error.empty()) r.error = rr.error;
      s.openRound = o;
    }
  }
  if (const json* br = r.get("best_round", false); br && !br->is_null()) {
    if (!br->is_number_integer()) r.bad("best_round", "a whole number or null");
    else s.bestRound = br->get<int>();
  }
  r.read("best_commit", s.bestCommit, "a string", false);
  r.read("baseline_commit", s.baselineCommit, "a string", false);
  r.read("consecutive_rollbacks", s.consecutiveRollbacks, "a non-negative whole number", false);
  if (const json* pj = r.get("pending", false); pj && !pj->is_null()) {
    if (!pj->is_object()) {
      r.bad("pending", "an object or null");
    } else {
      PendingStep p;
      FieldReader pr{*pj, "pending.", ""};
      pr.read("round", p.round, "a whole number");
      pr.read("step", p.step, "a string");
      pr.read("started_at", p.startedAt, "a string", false);
      if (pr.error.empty()) {
        const json* d = pr.get("detail", false);
        if (auto e = decodePendingDetail(d ? *d : json::object(), p)) pr.error = *e;
      }
      if (!pr.error.empty() && r.error.empty()) r.error = pr.error;
      s.pending = p;
    }
  }
  if (const json* fj = r.get("frozen", false); fj && !fj->is_null()) {
    try {
      s.frozen = FrozenSet::fromJson(*fj);
    } catch (const std::exception& e) {
      if (r.error.empty()) r.error = std::string("field 'frozen': ") + e.what();
    }
  }
  r.read("ledger_seq", s.ledgerSeq, "a non-negative whole number", false);
  if (!r.error.empty()) return "state.json: " + r.error;
  return s;
}

StateStore::StateStore(fs::path stateJson) : path_(std::move(stateJson)) {}

bool StateStore::exists() const {
  std::error_code ec;
  return fs::exists(path_, ec);
}

std::variant<CampaignState, std::string> StateStore::load() const {
  std::optional<std::string> text;
  try {
    text = util::readFileIfExists(path_);
  } catch (const util::IoError& e) {
    return std::string(e.what());
  }
  if (!text) return path_.string() + ": no state file (is this a campaign directory?)";
  const auto parsed = util::parseJsonText(*text);
  if (!parsed) {
    return path_.string() + ": not valid JSON (edited by hand? kopt writes it atomically)";
  }
  auto r = campaignStateFromJson(*parsed);
  if (auto* err = std::get_if<std::string>(&r)) {
    const std::string prefix = "state.json: ";
    std::string why = err->rfind(prefix, 0) == 0 ? err->substr(prefix.size()) : *err;
    return path_.string() + ": " + why;
  }
  return r;
}

void StateStore::save(const CampaignState& s) const {
  util::writeFileAtomic(path_, toJson(s).dump(2) + "\n");
}

}  // namespace kopt::campaign
