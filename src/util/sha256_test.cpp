#include "util/sha256.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "util/atomic_file.h"

using namespace kopt::util;

TEST_CASE("sha256 matches the FIPS 180-4 / NIST test vectors") {
  CHECK(sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                  "klmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(sha256Hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 is the same whether fed at once or in odd-sized pieces") {
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7));
  for (std::size_t piece : {1u, 3u, 55u, 56u, 63u, 64u, 65u, 200u}) {
    Sha256 h;
    for (std::size_t i = 0; i < data.size(); i += piece) h.update(std::string_view(data).substr(i, piece));
    CHECK(h.finishHex() == sha256Hex(data));
  }
}

TEST_CASE("sha256FileHex hashes the file's bytes and throws naming a missing file") {
  auto dir = std::filesystem::temp_directory_path() / ("kopt_sha_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "f.bin";
  { std::ofstream(file, std::ios::binary) << "abc"; }
  CHECK(sha256FileHex(file) == sha256Hex("abc"));
  CHECK_THROWS_AS(sha256FileHex(dir / "missing"), IoError);
  std::filesystem::remove_all(dir);
}
