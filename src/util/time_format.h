#pragma once
// Time stamps in the formats the records use. A Clock seam lets tests pin "now".
#include <chrono>
#include <string>

namespace kopt::util {

using SystemTime = std::chrono::system_clock::time_point;

// "2026-04-12T09:30:05.123Z" (UTC, milliseconds): the ledger's ts.
std::string formatIso8601Utc(SystemTime t);
// "2026-04-12 09:30" (local time): the manifest's `created`.
std::string formatManifestCreated(SystemTime t);
// "20260412" (local time): the date part of a campaign name.
std::string formatCompactDate(SystemTime t);

}  // namespace kopt::util
