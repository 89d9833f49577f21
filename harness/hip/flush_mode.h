#pragma once
// How the cold-cache flush between timed calls evicts the L2 (gpu/l2_flush.h):
//   Read:  read the flush buffer (clean lines): nothing is left to write back. The default.
//   Write: overwrite it (--write-flush; the benches did until the ninth session). Leaves the whole
//          L2 dirty; with the launch cover the next call starts right behind it and shares HBM with
//          that write-back: on the H200 the RMSNorm read 1.1-6.2 % less bandwidth than with Read
//          (docs/gpu-validation.md, ninth session).
namespace kopt::hipbench {

enum class FlushMode { Write, Read };

}  // namespace kopt::hipbench
