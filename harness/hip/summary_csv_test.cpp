#include "harness/hip/summary_csv.h"

#include <cmath>
#include <limits>

#include <doctest/doctest.h>

using namespace kopt::hipbench;

TEST_CASE("the GEMM header is the frozen 15-column schema") {
  CHECK(std::string(kGemmHeader) ==
        "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,"
        "Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr");
  CHECK(std::string(kMemoryHeader) ==
        "label,B,M,N,Check,Forward GB/s,Forward GB/s_stddev,Backward GB/s,Backward GB/s_stddev,"
        "Forward Time (ms),Backward Time (ms),max_abs_err");
}

TEST_CASE("numbers print with six significant digits; non-finite values are spelled out") {
  CHECK(formatNumber(123.456789) == "123.457");
  CHECK(formatNumber(0.000123456) == "0.000123456");
  CHECK(formatNumber(std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(formatNumber(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(formatNumber(-std::numeric_limits<double>::infinity()) == "-inf");
}

TEST_CASE("rows: PASS with metrics, FAIL with nan, LF endings and no BOM") {
  SummaryRow pass;
  pass.label = "m8_n8_k8";
  pass.m = pass.n = pass.k = 8;
  pass.pass = true;
  pass.fwdMetric = 1.5;
  pass.fwdStddev = 0.01;
  pass.bwdMetric = 1.25;
  pass.bwdStddev = 0.02;
  pass.fwdMs = 0.5;
  pass.bwdMs = 1.0;
  pass.checkValues = {45.5, std::numeric_limits<double>::infinity(), 44.0};
  SummaryRow fail;
  fail.label = "m9_n9_k9";
  fail.m = fail.n = fail.k = 9;
  const std::string text = summaryCsvText(Schema::Gemm, {pass, fail});
  CHECK(text.find('\r') == std::string::npos);
  CHECK(static_cast<unsigned char>(text[0]) == 'l');
  const std::string expected = std::string(kGemmHeader) + "\n" +
                               "m8_n8_k8,1,8,8,8,PASS,1.5,0.01,1.25,0.02,0.5,1,45.5,inf,44\n"
                               "m9_n9_k9,1,9,9,9,FAIL,nan,nan,nan,nan,nan,nan,nan,nan,nan\n";
  CHECK(text == expected);

  SummaryRow mem;
  mem.label = "m4_n4";
  mem.m = mem.n = 4;
  mem.pass = true;
  mem.fwdMetric = mem.bwdMetric = 100;
  mem.fwdStddev = mem.bwdStddev = 1;
  mem.fwdMs = mem.bwdMs = 0.25;
  mem.checkValues = {0.0078125};
  CHECK(summaryCsvText(Schema::Memory, {mem}) ==
        std::string(kMemoryHeader) + "\nm4_n4,1,4,4,PASS,100,1,100,1,0.25,0.25,0.0078125\n");
}
