#include "device/shared_library.h"

#include <doctest/doctest.h>

using namespace kopt::device;

TEST_CASE("a missing library reports every attempt") {
  std::string error;
  auto lib = SharedLibrary::openFirst({"libkopt-does-not-exist.so.1", "/nonexistent/libx.so"}, &error);
  CHECK_FALSE(lib.loaded());
  CHECK(error.find("libkopt-does-not-exist.so.1") != std::string::npos);
  CHECK(error.find("/nonexistent/libx.so") != std::string::npos);
  CHECK(lib.rawSymbol("anything") == nullptr);
}

TEST_CASE("the first loadable candidate wins and its symbols resolve") {
  std::string error;
  auto lib = SharedLibrary::openFirst({"libkopt-does-not-exist.so.1", "libm.so.6"}, &error);
  REQUIRE(lib.loaded());
  CHECK(lib.path() == "libm.so.6");
  auto cosine = lib.symbol<double (*)(double)>("cos");
  REQUIRE(reinterpret_cast<void*>(cosine) != nullptr);
  CHECK(cosine(0.0) == doctest::Approx(1.0));
  CHECK(lib.rawSymbol("kopt_no_such_symbol") == nullptr);
}
