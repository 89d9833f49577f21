#include "harness/hip/bench_driver.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "harness/hip/samples_writer.h"

namespace kopt::hipbench {

namespace {

double unitScale(Schema schema) {
  // FLOP per ms -> TFLOPS is 1e-9; bytes per ms -> GB/s is 1e-6.
  return schema == Schema::Gemm ? 1e-9 : 1e-6;
}

bool validTimes(const DirectionTiming& t) {
  if (t.timesMs.empty() || !(t.workPerCall > 0)) return false;
  for (double ms : t.timesMs) {
    if (!std::isfinite(ms) || ms <= 0) return false;
  }
  return true;
}

}  // namespace

SummaryRow summaryRow(Schema schema, const Shape& shape, const ShapeOutcome& outcome) {
  SummaryRow row;
  row.label = shape.label;
  row.b = shape.b;
  row.m = shape.m;
  row.n = shape.n;
  row.k = shape.k;
  row.checkValues = outcome.checkValues;
  const bool fwdOk = outcome.forward && validTimes(*outcome.forward);
  const bool bwdOk = outcome.backward && validTimes(*outcome.backward);
  // A PASS needs a correct answer and both directions timed; anything less is a FAIL row.
  row.pass = outcome.pass && fwdOk && bwdOk;
  if (fwdOk) {
    const auto t = throughput(outcome.forward->timesMs, outcome.forward->workPerCall, unitScale(schema));
    row.fwdMetric = t.atMedianTime;
    row.fwdStddev = t.pstdev;
    row.fwdMs = summarize(outcome.forward->timesMs).median;
  }
  if (bwdOk) {
    const auto t = throughput(outcome.backward->timesMs, outcome.backward->workPerCall, unitScale(schema));
    row.bwdMetric = t.atMedianTime;
    row.bwdStddev = t.pstdev;
    row.bwdMs = summarize(outcome.backward->timesMs).median;
  }
  return row;
}

bool writeFileAtomically(const std::string& path, const std::string& text, std::string* error) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      if (error) *error = "cannot write " + temp;
      std::remove(temp.c_str());
      return false;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    if (error) *error = "cannot rename " + temp + " to " + path;
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

int runBench(const std::vector<std::string>& args, const BenchDefinition& bench, std::ostream& out, std::ostream& err) {
  const auto parsed = parseBenchArgs(args);
  if (const auto* e = std::get_if<CliError>(&parsed)) {
    err << bench.harness << ": " << e->message << "\n" << benchUsage(bench.harness);
    return 2;
  }
  const BenchArgs& a = std::get<BenchArgs>(parsed);
  if (a.help) {
    out << benchUsage(bench.harness);
    return 0;
  }
  if (a.listShapes) {
    for (const auto& s : bench.shapes) out << s.label << "\n";
    for (const auto& s : bench.edgeShapes) out << s.label << " (edge, --check-only)\n";
    return 0;
  }

  // Shape selection: the given labels in the given order; an unknown label is a usage error.
  std::map<std::string, Shape> known;
  for (const auto& s : bench.shapes) known[s.label] = s;
  for (const auto& s : bench.edgeShapes) known.emplace(s.label, s);
  std::vector<Shape> selected;
  if (a.shapes) {
    for (const auto& label : *a.shapes) {
      auto it = known.find(label);
      if (it == known.end()) {
        err << bench.harness << ": unknown shape label '" << label << "' (--list-shapes prints the known ones)\n";
        return 2;
      }
      selected.push_back(it->second);
    }
  } else {
    selected = bench.shapes;
    if (a.checkOnly) selected.insert(selected.end(), bench.edgeShapes.begin(), bench.edgeShapes.end());
  }

  RunContext ctx;
  ctx.seed = a.seed;
  ctx.checkOnly = a.checkOnly;
  ctx.sampling = a.sampling;
  ctx.flushBytes = a.flushBytes;
  ctx.launchCover = a.launchCover;
  ctx.flushMode = a.flushMode;
  try {
    if (bench.setUp) bench.setUp(ctx);
  } catch (const std::exception& e) {
    err << bench.harness << ": setup failed: " << e.what() << "\n";
    return 1;
  }

  std::vector<SummaryRow> rows;
  std::vector<SampleSeries> series;
  bool allPass = true;
  for (const auto& shape : selected) {
    ShapeOutcome outcome;
    try {
      outcome = bench.runShape(shape, ctx);
    } catch (const std::exception& e) {
      outcome = ShapeOutcome{};
      outcome.note = e.what();
    }
    SummaryRow row = summaryRow(bench.schema, shape, outcome);
    if (a.checkOnly) row.pass = outcome.pass;  // no timing in this mode
    allPass = allPass && row.pass;
    if (!row.pass) {
      err << bench.harness << ": " << shape.label << ": FAIL" << (outcome.note.empty() ? "" : ": " + outcome.note) << "\n";
    }
    out << shape.label << "  " << (row.pass ? "PASS" : "FAIL");
    for (double v : outcome.checkValues) out << "  " << formatNumber(v);
    if (!a.checkOnly) {
      out << "  fwd " << formatNumber(row.fwdMetric) << " +- " << formatNumber(row.fwdStddev) << "  bwd "
          << formatNumber(row.bwdMetric) << " +- " << formatNumber(row.bwdStddev)
          << (bench.schema == Schema::Gemm ? " TFLOPS" : " GB/s");
    }
    out << "\n";
    rows.push_back(row);
    if (row.pass && !a.checkOnly) {
      for (const auto* t : {&outcome.forward, &outcome.backward}) {
        SampleSeries s;
        s.label = shape.label;
        s.forward = (t == &outcome.forward);
        s.timesMs = (*t)->timesMs;
        s.stop = (*t)->stop;
        if (bench.schema == Schema::Gemm) s.flops = (*t)->workPerCall;
        else s.bytes = (*t)->workPerCall;
        series.push_back(std::move(s));
      }
    }
  }

  if (a.checkOnly && a.summaryCsv.empty()) return allPass ? 0 : 1;
  std::string error;
  if (!a.summaryCsv.empty() && !writeFileAtomically(a.summaryCsv, summaryCsvText(bench.schema, rows), &error)) {
    err << bench.harness << ": " << error << "\n";
    return 1;
  }
  if (!a.samplesPath.empty()) {
    const std::string device = bench.deviceName ? bench.deviceName() : std::string("unknown");
    if (!writeFileAtomically(a.samplesPath, samplesFileText(bench.harness, device, a.seed, series), &error)) {
      err << bench.harness << ": " << error << "\n";
      return 1;
    }
  }
  if (a.checkOnly) return allPass ? 0 : 1;
  return 0;
}

int runBenchMain(int argc, char** argv, const BenchDefinition& bench) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return runBench(args, bench, std::cout, std::cerr);
}

}  // namespace kopt::hipbench
