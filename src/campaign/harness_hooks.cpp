#include "campaign/harness_hooks.h"

namespace kopt::campaign {

std::optional<std::string> changedHooksRefusal(const std::string& candidateHooks, const std::string& bestHooks) {
  if (candidateHooks.empty() || bestHooks.empty() || candidateHooks == bestHooks) return std::nullopt;
  return "the measurement is refused: the candidate's kernel module changed its harness hooks (make_inputs, "
         "reference_forward, reference_backward, bytes_moved, or what they read: fingerprint " +
         candidateHooks.substr(0, 12) + " against the best's " + bestHooks.substr(0, 12) +
         "). They draw the inputs, compute the reference and count the work, so they are what the kernel is "
         "measured against and stay as they were at BASELINE: put them back and change only the kernel";
}

}  // namespace kopt::campaign
