#pragma once
// Every HIP call in the harness is checked; a failure throws with the call, file and line, and the
// bench driver turns it into a FAIL row (or a harness failure during setup).
#include <stdexcept>
#include <string>

#include "device/hip_portability.h"

#define KOPT_HIP_CHECK(call)                                                                              \
  do {                                                                                                    \
    hipError_t kopt_rc_ = (call);                                                                         \
    if (kopt_rc_ != hipSuccess) {                                                                         \
      throw std::runtime_error(std::string(#call) + " failed at " + __FILE__ + ":" + std::to_string(__LINE__) + \
                               ": " + hipGetErrorString(kopt_rc_));                                       \
    }                                                                                                     \
  } while (0)

// After a kernel launch: a launch error (bad configuration) or, after a sync, an execution error.
#define KOPT_HIP_CHECK_LAUNCH() KOPT_HIP_CHECK(hipGetLastError())
