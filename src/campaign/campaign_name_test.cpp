#include "campaign/campaign_name.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace kopt::campaign;

TEST_CASE("campaign name follows the contract's example") {
  CHECK(campaignName("gemm_fp8_blockwise", Backend::Triton, "gfx942", "20260412") ==
        "gemm_fp8_blockwise_triton_gfx942_20260412");
  Manifest m;
  m.targetOp = "gemm_fp8_blockwise";
  m.targetBackend = Backend::CK;
  m.targetGpu = "gfx950";
  m.created = "2026-04-12 09:30";
  CHECK(campaignName(m) == "gemm_fp8_blockwise_ck_gfx950_20260412");
  CHECK(isValidCampaignName(campaignName(m)));
}

TEST_CASE("names are sanitised for directories and branch names") {
  CHECK(sanitizeNamePart("GEMM fp8/../Block-wise") == "gemm_fp8_block_wise");
  CHECK(sanitizeNamePart("__a__b__") == "a_b");
  CHECK(sanitizeNamePart("../..") == "x");
  CHECK(sanitizeNamePart("caf\xC3\xA9") == "caf");
  CHECK(sanitizeNamePart(std::string(100, 'a')).size() == 64);
  CHECK(campaignName("rms norm", Backend::Cpu, "cpu", "20260101") == "rms_norm_cpu_cpu_20260101");
  CHECK_THROWS_AS(campaignName("x", Backend::Cpu, "cpu", "2026-01-01"), std::invalid_argument);
  CHECK_FALSE(isValidCampaignName("../x"));
  CHECK_FALSE(isValidCampaignName("A_b"));
  CHECK_FALSE(isValidCampaignName(""));
  CHECK_FALSE(isValidCampaignName("_x"));
}
