#include "device/shared_library.h"

#include <dlfcn.h>

namespace kopt::device {

SharedLibrary SharedLibrary::openFirst(const std::vector<std::string>& candidates, std::string* error) {
  std::string tried;     // every candidate, for the common "not installed" case
  std::string failures;  // the loader's messages for candidates that exist but did not load
  for (const auto& candidate : candidates) {
    if (candidate.empty()) continue;
    dlerror();  // clear any stale message
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      SharedLibrary library;
      library.handle_ = handle;
      library.path_ = candidate;
      return library;
    }
    const char* why = dlerror();
    const std::string message = why ? std::string(why) : candidate + ": cannot be loaded";
    if (!tried.empty()) tried += ", ";
    tried += candidate;
    if (message.find("No such file or directory") == std::string::npos) {
      if (!failures.empty()) failures += "; ";
      failures += message;
    }
  }
  if (error) {
    if (tried.empty()) *error = "no library candidates given";
    else if (failures.empty()) *error = "not found (tried " + tried + ")";
    else *error = failures + " (tried " + tried + ")";
  }
  return {};
}

void* SharedLibrary::rawSymbol(const char* name) const {
  if (!handle_) return nullptr;
  return dlsym(handle_, name);
}

}  // namespace kopt::device
