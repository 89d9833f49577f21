#pragma once
// The Python harness's hooks (make_inputs, reference_forward, reference_backward, bytes_moved)
// draw the inputs, compute the reference and count the bytes: they define what is measured, and
// they live in the kernel module, the very file the agent edits. The harness fingerprints them
// (harness/python/quick_test_bench.py, hooks_fingerprint) and reports it in its worker hello and
// its samples header; a candidate whose hooks differ from the best's is refused, so the yardstick
// stays the baseline's (the best's hooks are the baseline's: each accepted candidate matched them).
#include <optional>
#include <string>

namespace kopt::campaign {

// Why the candidate's measurement is refused, or nothing: both fingerprints known and different.
// A side that reports none (a harness without hooks, a module that did not import) has nothing
// to compare; its rows say what went wrong.
std::optional<std::string> changedHooksRefusal(const std::string& candidateHooks, const std::string& bestHooks);

}  // namespace kopt::campaign
