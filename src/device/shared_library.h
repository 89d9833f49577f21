#pragma once
// A run-time loaded shared library (dlopen). kopt reaches the GPU runtimes this way so that one
// binary, built with no GPU toolkit, says "no GPU" on a CI machine and queries the GPU on a GPU
// machine. Libraries are never unloaded: GPU runtimes register exit handlers and unloading them
// while the process lives is undefined behaviour in practice.
#include <string>
#include <vector>

namespace kopt::device {

class SharedLibrary {
 public:
  // Tries each candidate (a soname searched the usual way, or an absolute path) in order and keeps
  // the first that loads. On failure returns an empty library and `error` lists every attempt.
  static SharedLibrary openFirst(const std::vector<std::string>& candidates, std::string* error);

  bool loaded() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }

  // The symbol's address, or nullptr when this library does not export it.
  void* rawSymbol(const char* name) const;
  template <typename Fn>
  Fn symbol(const char* name) const {
    return reinterpret_cast<Fn>(rawSymbol(name));
  }

 private:
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace kopt::device
