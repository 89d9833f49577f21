#include "campaign/tips_store.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/atomic_file.h"

using namespace kopt::campaign;
namespace fs = std::filesystem;

namespace {
fs::path tempRoot(const char* tag) {
  auto d = fs::temp_directory_path() / (std::string("kopt_tips_") + tag + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}
}  // namespace

TEST_CASE("tips path is <root>/<gpu>/<op>/<backend lower>/tips.md, sanitised") {
  TipsStore store("/tips");
  CHECK(store.pathFor({"gfx942", "gemm_fp8_blockwise", "TRITON"}) ==
        "/tips/gfx942/gemm_fp8_blockwise/triton/tips.md");
  CHECK(store.pathFor({"../..", "a/b", "CK"}) == "/tips/_../a_b/ck/tips.md");
  CHECK(store.pathFor({"..", ".hidden", "CK"}) == "/tips/_/hidden/ck/tips.md");
}

TEST_CASE("append creates the file with the helper's header and entry format; query filters") {
  auto root = tempRoot("a");
  TipsStore store(root);
  TipKey key{"gfx942", "gemm_fp8_blockwise", "TRITON"};
  CHECK_FALSE(store.read(key).has_value());
  auto q0 = store.query(key);
  CHECK_FALSE(q0.fileExists);
  CHECK(q0.items.empty());

  NewTip t1;
  t1.round = 3;
  t1.context = "M=4096 N=4096 K=4096";
  t1.signal = "LDS bank conflicts in the profile";
  t1.takeaway = "pad the LDS tile by 8 elements";
  t1.applicability = "all K-major tiles";
  auto path = store.append(key, t1, "2026-04-12 09:30");
  CHECK(path == store.pathFor(key));
  NewTip t2;
  t2.round = 5;
  t2.status = "ROLLED BACK";
  t2.takeaway = "BLOCK_K=256 spills registers\n### not a heading";
  store.append(key, t2, "2026-04-12 10:00");

  std::string text = *store.read(key);
  CHECK(text.rfind("# Historical Experience Tips\n\nOperator: gemm_fp8_blockwise \xE2\x80\x94 Backend: "
                   "TRITON \xE2\x80\x94 GPU: gfx942\n\n",
                   0) == 0);
  CHECK(text.find("\n### 2026-04-12 09:30 round-3 \xE2\x80\x94 ACCEPTED\n- Context: M=4096 N=4096 "
                  "K=4096\n- Signal: LDS bank conflicts in the profile\n- Takeaway: pad the LDS tile "
                  "by 8 elements\n- Applicability: all K-major tiles\n") != std::string::npos);

  auto all = store.query(key);
  CHECK(all.fileExists);
  REQUIRE(all.items.size() == 2);  // the newline inside a value did not forge a third entry
  CHECK(all.items[0].heading == "2026-04-12 09:30 round-3 \xE2\x80\x94 ACCEPTED");
  CHECK(all.items[1].body.find("- Takeaway: BLOCK_K=256 spills registers ### not a heading") !=
        std::string::npos);
  auto lds = store.query(key, "lds");
  REQUIRE(lds.items.size() == 1);
  CHECK(lds.items[0].heading.find("round-3") != std::string::npos);
  CHECK(store.query(key, "registers rolled").items.size() == 1);
  CHECK(store.query(key, "registers lds").items.empty());
  fs::remove_all(root);
}

TEST_CASE("concurrent appends from several processes never interleave") {
  auto root = tempRoot("c");
  TipsStore store(root);
  TipKey key{"cpu", "rmsnorm", "CPU"};
  const int procs = 4, each = 25;
  std::vector<pid_t> pids;
  for (int p = 0; p < procs; ++p) {
    pid_t pid = ::fork();
    if (pid == 0) {
      for (int i = 0; i < each; ++i) {
        NewTip t;
        t.round = p * 1000 + i;
        t.takeaway = std::string(300, static_cast<char>('a' + p));
        store.append(key, t, "2026-01-01 00:00");
      }
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
  }
  auto items = store.query(key).items;
  CHECK(items.size() == procs * each);
  for (const auto& e : items) {
    char c = e.body.back();
    CHECK(e.body.find("- Takeaway: " + std::string(300, c)) != std::string::npos);
  }
  std::string text = *store.read(key);
  CHECK(text.rfind("# Historical Experience Tips", 0) == 0);
  CHECK(text.find("# Historical Experience Tips", 1) == std::string::npos);
  fs::remove_all(root);
}

TEST_CASE("splitTipEntries ignores text before the first entry") {
  auto entries = splitTipEntries("# title\n\nintro\n### one\n- a\n\n### two\nbody\n");
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].heading == "one");
  CHECK(entries[0].body == "### one\n- a");
  CHECK(entries[1].body == "### two\nbody");
}
