#pragma once
// Campaign names: <op>_<backend lower>_<gpu>_<YYYYMMDD>, e.g.
// gemm_fp8_blockwise_triton_gfx942_20260412. Used as a directory name and in a git branch name,
// so only [a-z0-9_] survive.
#include <string>
#include <string_view>

#include "campaign/manifest.h"

namespace kopt::campaign {

// Lower-case; runs of anything outside [a-z0-9_] become one '_'; leading/trailing '_' dropped;
// at most 64 chars. Empty input (or nothing left) gives "x".
std::string sanitizeNamePart(std::string_view part);

// yyyymmdd must be 8 digits (e.g. "20260412").
std::string campaignName(std::string_view op, Backend backend, std::string_view gpu,
                         std::string_view yyyymmdd);
// Date taken from m.created ("2026-04-12 09:30" -> 20260412).
std::string campaignName(const Manifest& m);

// Non-empty, [a-z0-9_] only, no leading '_' / '.', at most 128 chars.
bool isValidCampaignName(std::string_view name);

}  // namespace kopt::campaign
