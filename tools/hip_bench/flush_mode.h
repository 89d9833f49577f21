#pragma once
// How the cold-cache flush between timed calls evicts the L2 (gpu/l2_flush.h):
//   Write: overwrite the flush buffer (as shipped). Leaves the whole L2 dirty; with the launch
//          cover the next call starts right behind it and shares HBM with that write-back
//          (docs/gpu-validation.md, ninth session: RMSNorm up to 1.3 % slower).
//   Read:  read the flush buffer (clean lines): nothing is left to write back.
namespace kopt::hipbench {

enum class FlushMode { Write, Read };

}  // namespace kopt::hipbench
