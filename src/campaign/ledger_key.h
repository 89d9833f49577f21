#pragma once
// The ledger's key (docs/integrity.md, class 9: a verdict overturned by a re-chained ledger). The
// hash chain alone proves order, not authorship: anyone can append a line and recompute sha256.
// So each line of a new campaign's ledger also carries "mac": HMAC-SHA256(key, hash), with a
// random per-campaign key kept outside the campaign directory and the workspace, in the user's
// state directory (0600). An agent that forges a line must now go and read that key: deliberate
// key theft, visible in its own transcript, instead of "edit a JSON line". A campaign whose key
// file exists must have a valid MAC on every line, so stripping the MACs and re-chaining is
// refused too. Campaigns created before keys existed stay unkeyed (sha256 only).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kopt::campaign {

// $KOPT_STATE_DIR/ledger-keys, else $XDG_STATE_HOME/kopt/ledger-keys, else
// $HOME/.local/state/kopt/ledger-keys (empty when none of them is set).
std::filesystem::path defaultLedgerKeyDir();

// <keyDir>/<sha256 of the campaign directory's absolute path>.key
std::filesystem::path ledgerKeyPath(const std::filesystem::path& keyDir, const std::filesystem::path& campaignRoot);

// The campaign's key, or nullopt when it has none (an unkeyed campaign). Throws when the file
// exists but cannot be read or is not a key.
std::optional<std::string> loadLedgerKey(const std::filesystem::path& keyDir, const std::filesystem::path& campaignRoot);

// A fresh random key for a new campaign (replacing any stale one at that path), written 0600 in
// a 0700 directory. Throws when the key cannot be stored.
std::string createLedgerKey(const std::filesystem::path& keyDir, const std::filesystem::path& campaignRoot);

std::string hmacSha256Hex(std::string_view key, std::string_view message);

}  // namespace kopt::campaign
