#pragma once
// Long-lived historical tips shared across campaigns:
//   <tips_root>/<gpu>/<op>/<backend lower>/tips.md
// Appends take an flock on "<tips.md path without .md>.lock" so parallel campaigns never interleave.
//
// Result fields of the existing Python `turbo` helper (ChengYao-amd/primus-turbo-auto-optimizer,
// turbo_optimize/mcp/{tips,history}.py), which the tools layer must reproduce:
//   query_tips   -> {path, items: [{heading, body}], count}
//                   (op/backend/gpu missing: {items: [], note}; file missing: {path, items: [], note:
//                   "tips file does not exist yet"}); keyword filter = case-insensitive substring of body
//   append_tip   -> {path, ok: true}; entry fields: round, status (default "ACCEPTED"), context,
//                   signal, takeaway, applicability; rendered as
//                   "\n### <YYYY-MM-DD HH:MM> round-<N> — <STATUS>\n- Context: ...\n- Signal: ...\n
//                    - Takeaway: ...\n- Applicability: ...\n" (empty fields omitted); a new file
//                   starts "# Historical Experience Tips\n\nOperator: <op> — Backend: <backend> — GPU: <gpu>\n\n"
//   query_trend  -> {campaign_dir, source (trend md path), rows: [{round, status, description,
//                   fwd_avg, fwd_peak, bwd_avg, bwd_peak, step_geomean, vs_baseline_step_pct,
//                   vs_baseline_fwd_pct, vs_baseline_bwd_pct, key_finding}] (last `limit` rows),
//                   rollback_streak, current_best_round, current_best_score: {metric: value}}
//   list_ineffective_directions -> {campaign_dir, source (optimize.md path),
//                   items: [{round, direction, reason, modified_files: [..]}]}
//   read_best_summary -> {campaign_dir, round, source (summary.md path), body}; no accepted round:
//                   {campaign_dir, round: null, body: "", note: "no accepted round yet; nothing to return"}
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kopt::campaign {

struct TipKey {
  std::string gpu;      // arch, e.g. gfx942
  std::string op;       // target_op
  std::string backend;  // any case; lower-cased in the path
};

struct TipEntry {      // one "### ..." block of tips.md
  std::string heading;  // header line without the leading "### "
  std::string body;     // the whole block, heading line included, trimmed
};

struct NewTip {
  std::optional<int> round;
  std::string status = "ACCEPTED";
  std::string context, signal, takeaway, applicability;
};

struct TipsQuery {
  std::filesystem::path path;
  bool fileExists = false;
  std::vector<TipEntry> items;
};

class TipsStore {
 public:
  explicit TipsStore(std::filesystem::path tipsRoot);
  // <root>/<gpu>/<op>/<backend lower>/tips.md, each part sanitized (no '/', no "..").
  std::filesystem::path pathFor(const TipKey& key) const;

  std::optional<std::string> read(const TipKey& key) const;  // whole file; nullopt when missing
  // Entries whose body contains `keyword` (case-insensitive); every entry when keyword is empty.
  // Several space-separated keywords must all match.
  TipsQuery query(const TipKey& key, const std::string& keyword = "") const;
  // Appends under flock (creating the file with its header first); returns the file path.
  // `now` is "YYYY-MM-DD HH:MM"; empty = the current local time.
  std::filesystem::path append(const TipKey& key, const NewTip& tip, const std::string& now = "") const;

  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

// Splits tips.md text into "### " blocks (pure).
std::vector<TipEntry> splitTipEntries(const std::string& text);
// The block append() writes (pure).
std::string renderTip(const NewTip& tip, const std::string& now);

}  // namespace kopt::campaign
