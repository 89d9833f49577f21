#include "exec/shard.h"

#include <doctest/doctest.h>

#include "exec/test_support.h"

using namespace kopt::exec;
using namespace kopt::exec::testing;
using namespace std::chrono_literals;
using Labels = std::vector<std::string>;

namespace {

std::string fakeBench() { return std::string(KOPT_SOURCE_DIR) + "/tests/fixtures/exec/fake_bench.sh"; }

std::string mergedOk(const std::variant<std::string, MergeError>& r) {
  if (auto* e = std::get_if<MergeError>(&r)) FAIL("unexpected merge error: " << e->message);
  return std::get<std::string>(r);
}

std::string mergeError(const std::variant<std::string, MergeError>& r) {
  REQUIRE(std::holds_alternative<MergeError>(r));
  return std::get<MergeError>(r).message;
}

ShardedRunSpec shardSpec(const TempDir& dir, const Labels& shapes, const Labels& devices) {
  ShardedRunSpec s;
  s.base.argv = {fakeBench()};
  s.base.timeout = 60s;
  s.base.stdoutPath = dir / "bench.log";
  s.shapes = shapes;
  s.devices = devices;
  s.seed = 7;
  s.summaryCsv = dir / "benchmark.csv";
  s.samples = dir / "samples.jsonl";
  s.workDir = dir / "shards";
  return s;
}

}  // namespace

TEST_CASE("splitShapes deals shapes round-robin and never makes an empty shard") {
  CHECK(splitShapes({"a", "b", "c", "d", "e"}, 2) == std::vector<Labels>{{"a", "c", "e"}, {"b", "d"}});
  CHECK(splitShapes({"a", "b"}, 4) == std::vector<Labels>{{"a"}, {"b"}});
  CHECK(splitShapes({"a", "b"}, 0) == std::vector<Labels>{{"a", "b"}});
  CHECK(splitShapes({"a", "b", "c"}, 1) == std::vector<Labels>{{"a", "b", "c"}});
  CHECK(splitShapes({}, 3).empty());
}

TEST_CASE("mergeSummaryCsv restores the manifest order with the shards' own row text") {
  const std::string h = "label,B,M,N,K,Check,Forward TFLOPS\n";
  auto merged = mergedOk(mergeSummaryCsv({"a", "b", "c"}, {h + "a,1,2,3,4,PASS,1.5\nc,1,2,3,4,FAIL,nan\n", h + "b,1,2,3,4,PASS,2\n"}));
  CHECK(merged == h + "a,1,2,3,4,PASS,1.5\nb,1,2,3,4,PASS,2\nc,1,2,3,4,FAIL,nan\n");
  // CRLF and a missing final newline come out as the contract's LF lines.
  CHECK(mergedOk(mergeSummaryCsv({"a"}, {"label,x\r\na,1"})) == "label,x\na,1\n");
  // A quoted label with a comma.
  CHECK(mergedOk(mergeSummaryCsv({"m,n"}, {"label,x\n\"m,n\",1\n"})) == "label,x\n\"m,n\",1\n");
}

TEST_CASE("mergeSummaryCsv refuses what would not be one single-device table") {
  const std::string h = "label,x\n";
  CHECK(mergeError(mergeSummaryCsv({"a", "b"}, {h + "a,1\n", "label,y\nb,1\n"})).find("header differs") != std::string::npos);
  CHECK(mergeError(mergeSummaryCsv({"a", "b"}, {h + "a,1\n", h})).find("no shard wrote a row for shape 'b'") != std::string::npos);
  CHECK(mergeError(mergeSummaryCsv({"a"}, {h + "a,1\n", h + "a,2\n"})).find("two rows") != std::string::npos);
  CHECK(mergeError(mergeSummaryCsv({"a"}, {h + "a,1\nz,1\n"})).find("'z'") != std::string::npos);
  CHECK(mergeError(mergeSummaryCsv({"a"}, {""})).find("empty CSV") != std::string::npos);
  CHECK(mergeError(mergeSummaryCsv({"a"}, {})).find("no shard") != std::string::npos);
}

TEST_CASE("mergeSamples keeps shard 0's header and orders sample lines by shape") {
  const std::string h = R"({"kopt_samples":1,"harness":"x","device":"cpu","seed":3})";
  const std::string a1 = R"({"label":"a","direction":"forward","times":[1]})";
  const std::string a2 = R"({"label":"a","direction":"backward","times":[2]})";
  const std::string b1 = R"({"label":"b","direction":"forward","times":[3]})";
  CHECK(mergedOk(mergeSamples({"a", "b"}, {h + "\n" + b1 + "\n", h + "\n" + a1 + "\n" + a2 + "\n"})) ==
        h + "\n" + a1 + "\n" + a2 + "\n" + b1 + "\n");
  const std::string otherDevice = R"({"kopt_samples":1,"harness":"x","device":"gpu","seed":3})";
  CHECK(mergeError(mergeSamples({"a", "b"}, {h + "\n" + a1 + "\n", otherDevice + "\n" + b1 + "\n"})).find("device") != std::string::npos);
  CHECK(mergeError(mergeSamples({"a"}, {"not json\n"})).find("header") != std::string::npos);
  CHECK(mergeError(mergeSamples({"a"}, {h + "\n{\"x\":1}\n"})).find("label") != std::string::npos);
  CHECK(mergeError(mergeSamples({"a"}, {h + "\n" + a1 + "\n", h + "\n" + a2 + "\n"})).find("shards 0 and 1") != std::string::npos);
}

TEST_CASE("a sharded run equals the single-device run, byte for byte") {
  TempDir dir("shard");
  const Labels shapes = {"s1", "shape2", "s3", "sh4", "s5"};
  auto executor = makeLocalExecutor();
  auto spec = shardSpec(dir, shapes, {"0", "1"});
  auto r = runSharded(*executor, spec, {});
  REQUIRE_MESSAGE(r.ok(), r.error);
  REQUIRE(r.shards.size() == 2);
  CHECK(r.shards[0].shapes == Labels{"s1", "s3", "s5"});

  CommandSpec single;
  single.argv = {fakeBench(), "--summary-csv", (dir / "single.csv").string(), "--samples",
                 (dir / "single.jsonl").string(), "--shapes", "s1,shape2,s3,sh4,s5", "--seed", "7"};
  single.stdoutPath = dir / "single.log";
  REQUIRE(executor->run(single, {}).ok());
  CHECK(readFile(dir / "benchmark.csv") == readFile(dir / "single.csv"));
  CHECK(readFile(dir / "samples.jsonl") == readFile(dir / "single.jsonl"));
  // The caller's log holds every shard's output.
  const std::string log = readFile(dir / "bench.log");
  CHECK(log.find("==> shard 1 on device 1 (shapes shape2,sh4): exited <==") != std::string::npos);
  CHECK(log.find("done sh4") != std::string::npos);
}

TEST_CASE("each local shard sees only its device through CUDA/HIP_VISIBLE_DEVICES") {
  TempDir dir("sharddev");
  auto spec = shardSpec(dir, {"a", "b", "c"}, {"3", "5"});
  spec.base.env["FAKE_PRINT_DEVICE"] = "1";
  auto r = runSharded(*makeLocalExecutor(), spec, {});
  REQUIRE_MESSAGE(r.ok(), r.error);
  CHECK(readFile(dir / "benchmark.csv") ==
        "label,B,M,N,K,Check,Forward TFLOPS\n"
        "a,1,1,2,7,PASS@3/3,0.1\nb,1,1,2,7,PASS@5/5,0.1\nc,1,1,2,7,PASS@3/3,0.1\n");

  // SchedulerAssigns leaves the device choice to Slurm: kopt sets nothing.
  spec.binding = DeviceBinding::SchedulerAssigns;
  spec.base.env["CUDA_VISIBLE_DEVICES"] = "";
  spec.base.env["HIP_VISIBLE_DEVICES"] = "";
  r = runSharded(*makeLocalExecutor(), spec, {});
  REQUIRE_MESSAGE(r.ok(), r.error);
  CHECK(readFile(dir / "benchmark.csv").find("PASS@none/none") != std::string::npos);
}

TEST_CASE("a failing shard fails the run, names itself and cancels the others; nothing is merged") {
  TempDir dir("shardfail");
  auto spec = shardSpec(dir, {"a", "b", "c", "d"}, {"0", "1"});
  spec.base.env["FAKE_FAIL_ON"] = "d";  // shard 1 (b, d) fails
  spec.base.env["FAKE_HANG_ON"] = "c";  // shard 0 (a, c) would hang forever
  auto r = runSharded(*makeLocalExecutor(), spec, {});
  CHECK_FALSE(r.ok());
  CHECK(str(r.overall.outcome) == str(RunOutcome::Exited));
  CHECK(r.overall.exitCode == 3);
  CHECK(r.error.find("shard 1 on device 1 (shapes b,d)") != std::string::npos);
  CHECK(str(r.shards[0].result.outcome) == str(RunOutcome::Cancelled));
  CHECK_FALSE(std::filesystem::exists(dir / "benchmark.csv"));
}

TEST_CASE("cancelling a sharded run cancels every shard") {
  TempDir dir("shardcancel");
  auto spec = shardSpec(dir, {"a", "b"}, {"0", "1"});
  spec.base.env["FAKE_HANG_ON"] = "b";
  RunObserver observer;
  observer.onProgress = [&](const RunProgress& p) {
    if (p.lastLine == "hanging on b") observer.cancel.cancel();
  };
  auto r = runSharded(*makeLocalExecutor(), spec, observer);
  CHECK_FALSE(r.ok());
  CHECK(str(r.overall.outcome) == str(RunOutcome::Cancelled));
  CHECK_FALSE(std::filesystem::exists(dir / "benchmark.csv"));
}

TEST_CASE("a shard that exits 0 without its CSV, or a bad spec, is an error") {
  TempDir dir("shardbad");
  auto spec = shardSpec(dir, {"a"}, {"0"});
  spec.base.argv = {"true"};
  auto r = runSharded(*makeLocalExecutor(), spec, {});
  CHECK_FALSE(r.ok());
  CHECK(r.error.find("wrote no summary CSV") != std::string::npos);

  spec = shardSpec(dir, {"a", "a"}, {"0"});
  CHECK(runSharded(*makeLocalExecutor(), spec, {}).error.find("listed twice") != std::string::npos);
  spec = shardSpec(dir, {"a"}, {});
  CHECK(str(runSharded(*makeLocalExecutor(), spec, {}).overall.outcome) == str(RunOutcome::FailedToStart));
}
