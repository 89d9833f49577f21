#pragma once
// state.json files as kopt wrote them while the pending step's detail was untyped JSON: one per
// kind of step in flight (a command, a measurement, a decision at each of its sub-steps). The
// first is copied verbatim from a campaign directory; the others were written in the same
// encoding (keys sorted, two-space indent), the round records taken from a campaign's ledger
// (ledger_events_fixture.h). The state codec must read each and write it back byte for byte.
#include <string>
#include <utility>
#include <vector>

namespace kopt::campaign::testing {

// (what was in flight, state.json's text)
inline const std::vector<std::pair<std::string, std::string>>& stateFilesWrittenBeforeTypedSteps() {
  // The frozen-files list is the same in every file but the first (an older campaign's): spelled once.
  static const std::string frozen = R"state("frozen": [
    {
      "kind": "file",
      "name": "manifest.yaml",
      "path": "/tmp/kopt-engine-y4Ov2Z/repo/.kopt/campaigns/fake_gemm_cpu_cpu_20260412/manifest.yaml",
      "sha256": "6f2eadb52226d111be083e2cced0c42e9e05b1a5188d7798d612b08336865041"
    },
    {
      "kind": "file",
      "name": "bench.py",
      "path": "bench.py",
      "sha256": "883548c776372e39da5e70157128cf6bad05a1c18784b2134eb0ff02ed25ba91"
    },
    {
      "kind": "file",
      "name": "build.py",
      "path": "build.py",
      "sha256": "28954181e8ac67767f63c7b47035e866969ffa573a10728038ce90d37b4c7902"
    },
    {
      "kind": "file",
      "name": "test.py",
      "path": "test.py",
      "sha256": "77ff0e72ffa26c587c42aa28b99894f110e88dd9a26234ab623b18f1089ab81f"
    },
    {
      "kind": "text",
      "name": "repository outside the kernel sources",
      "sha256": "a2427c2c236056c744067daa14132df82ada1e3606aece3a0d59e8e695fec348"
    },
    {
      "kind": "text",
      "name": "schema header",
      "sha256": "b46f2be572f42db608cfc5608d2b92fd87cef30f7004138413d0791f28fa0814"
    },
    {
      "kind": "text",
      "name": "shape list",
      "sha256": "fa42ceecb5a1440dab0446b13ede1c958c8c4fd6b39e4d0d8a0f39ee16926c02"
    },
    {
      "kind": "text",
      "name": "representative shapes",
      "sha256": "fa42ceecb5a1440dab0446b13ede1c958c8c4fd6b39e4d0d8a0f39ee16926c02"
    },
    {
      "kind": "text",
      "name": "test_command",
      "sha256": "be24554453966bfa829b9ef900b665842ff50d927063d92c4c46c3d2ee5c4e5f"
    },
    {
      "kind": "text",
      "name": "benchmark_command",
      "sha256": "6861cffc7d91fbeee53c5e424632eda2f9214067bd964a6a4e67a1e8ab6de8ca"
    },
    {
      "kind": "text",
      "name": "quick_command",
      "sha256": "6861cffc7d91fbeee53c5e424632eda2f9214067bd964a6a4e67a1e8ab6de8ca"
    },
    {
      "kind": "text",
      "name": "build_command",
      "sha256": "57685d26fa0c71a3c0a832d71e3fcbff032ebc3b78d9b55b1d3500f9a4876624"
    }
  ])state";
  static const std::vector<std::pair<std::string, std::string>> files = {
      {"run_baseline's measurement (a state.json copied verbatim from a campaign)",
       R"state({
  "baseline_commit": "",
  "best_commit": "",
  "best_round": null,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 0,
  "frozen": [],
  "last_round": 0,
  "ledger_seq": 5,
  "open_round": null,
  "pending": {
    "detail": {
      "after_seq": 4,
      "tag": "r1-aa-1",
      "tags": [
        "r1-aa-1",
        "r1-quick-1"
      ]
    },
    "round": 1,
    "started_at": "2026-12-03T14:44:03.228Z",
    "step": "baseline"
  },
  "phase": "BASELINE",
  "version": 1
}
)state"},
      {"a build of round-2",
       std::string(R"state({
  "baseline_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_round": 1,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 0,
  )state") + frozen + R"state(,
  "last_round": 2,
  "ledger_seq": 7,
  "open_round": {
    "config_only": false,
    "declared_files": [
      "kernel/config.ini"
    ],
    "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
    "number": 2
  },
  "pending": {
    "detail": {
      "after_seq": 7
    },
    "round": 2,
    "started_at": "2026-12-03T15:36:59.170Z",
    "step": "build"
  },
  "phase": "OPTIMIZE",
  "version": 1
}
)state"},
      {"its tests",
       std::string(R"state({
  "baseline_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_round": 1,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 0,
  )state") + frozen + R"state(,
  "last_round": 2,
  "ledger_seq": 8,
  "open_round": {
    "config_only": false,
    "declared_files": [
      "kernel/config.ini"
    ],
    "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
    "number": 2
  },
  "pending": {
    "detail": {
      "after_seq": 8
    },
    "round": 2,
    "started_at": "2026-12-03T15:36:59.300Z",
    "step": "tests"
  },
  "phase": "OPTIMIZE",
  "version": 1
}
)state"},
      {"a quick bench",
       std::string(R"state({
  "baseline_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_round": 1,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 0,
  )state") + frozen + R"state(,
  "last_round": 2,
  "ledger_seq": 9,
  "open_round": {
    "config_only": false,
    "declared_files": [
      "kernel/config.ini"
    ],
    "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
    "number": 2
  },
  "pending": {
    "detail": {
      "after_seq": 9,
      "tag": "r2-quick-1"
    },
    "round": 2,
    "started_at": "2026-12-03T15:36:59.420Z",
    "step": "bench"
  },
  "phase": "OPTIMIZE",
  "version": 1
}
)state"},
      {"validate_round's measurement",
       std::string(R"state({
  "baseline_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_round": 1,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 0,
  )state") + frozen + R"state(,
  "last_round": 2,
  "ledger_seq": 10,
  "open_round": {
    "config_only": false,
    "declared_files": [
      "kernel/config.ini"
    ],
    "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
    "number": 2
  },
  "pending": {
    "detail": {
      "after_seq": 10,
      "tag": "r2-validate-quick-2"
    },
    "round": 2,
    "started_at": "2026-12-03T15:37:00.030Z",
    "step": "validate"
  },
  "phase": "OPTIMIZE",
  "version": 1
}
)state"},
      {"an accept, before anything changed",
       std::string(R"state({
  "baseline_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_round": 1,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 0,
  )state") + frozen + R"state(,
  "last_round": 2,
  "ledger_seq": 11,
  "open_round": {
    "config_only": false,
    "declared_files": [
      "kernel/config.ini"
    ],
    "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
    "number": 2
  },
  "pending": {
    "detail": {
      "accept": true,
      "after_seq": 11,
      "declared": [
        "kernel/config.ini"
      ],
      "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
      "message": "[optimize] round-2: speed knob\n\nHypothesis: I expect more TFLOPS because the knob is faster\nForward TFLOPS: 100.079 -> 124.907\nCampaign: /tmp/kopt-engine-y4Ov2Z/repo/.kopt/campaigns/fake_gemm_cpu_cpu_20260412",
      "record": {
        "aggregate": {
          "baseline": 100.07854287046676,
          "best": 100.07854287046676,
          "delta_vs_baseline_pct": 24.808529126525624,
          "delta_vs_best_pct": 24.853637698185473,
          "metric": "Forward TFLOPS",
          "pass_count": 4,
          "shape_count": 4,
          "value": 124.90655732788893
        },
        "attribution": "the knob",
        "campaign": "fake_gemm_cpu_cpu_20260412",
        "commit": "",
        "decision_reason": "geomean ratio +24.85% (CI +24.55% .. +25.16%), no shape REGRESSED, PASS set kept",
        "description": "speed knob",
        "flags": [],
        "gate_verdict": "ACCEPT",
        "hypothesis": {
          "bottleneck": "",
          "change": "speed knob",
          "config_only": false,
          "expected_effect": {
            "direction": "increase",
            "metric": "Forward TFLOPS",
            "size_pct": 10.0
          },
          "files": [
            "kernel/config.ini"
          ],
          "risk": "",
          "rule11_bucket": "K1",
          "statement": "I expect more TFLOPS because the knob is faster"
        },
        "key_finding": "speed knob",
        "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
        "next_direction": "tile sizes",
        "number": 2,
        "shapes": [
          {
            "check": "PASS",
            "ci_high_pct": 25.26102543130142,
            "ci_low_pct": 24.67902000978355,
            "delta_vs_best_pct": 24.969683908519325,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "64"
              ],
              [
                "N",
                "64"
              ],
              [
                "K",
                "64"
              ]
            ],
            "label": "s1",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.0483725,
                "value": 124.89
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.8900282909262,
            "verdict": "IMPROVED"
          },
          {
            "check": "PASS",
            "ci_high_pct": 25.587983383799795,
            "ci_low_pct": 23.87226914788796,
            "delta_vs_best_pct": 24.727176186501264,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "128"
              ],
              [
                "N",
                "128"
              ],
              [
                "K",
                "128"
              ]
            ],
            "label": "s2",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.04553875,
                "value": 124.87549999999999
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.87557955976801,
            "verdict": "IMPROVED"
          },
          {
            "check": "PASS",
            "ci_high_pct": 25.31775717061784,
            "ci_low_pct": 24.415233151881253,
            "delta_vs_best_pct": 24.86567973808198,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "96"
              ],
              [
                "N",
                "80"
              ],
              [
                "K",
                "72"
              ]
            ],
            "label": "s3",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.05485605,
                "value": 124.965
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.96477073092522,
            "verdict": "IMPROVED"
          },
          {
            "check": "PASS",
            "ci_high_pct": 25.729371721304737,
            "ci_low_pct": 23.98100806411754,
            "delta_vs_best_pct": 24.852129534403677,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "16"
              ],
              [
                "N",
                "256"
              ],
              [
                "K",
                "128"
              ]
            ],
            "label": "s4",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.05340175,
                "value": 124.896
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.89586968408088,
            "verdict": "IMPROVED"
          }
        ],
        "status": "ACCEPTED",
        "timestamp": "2026-12-03 15:37",
        "transfer": {
          "benchmark_gain": "+24.854%",
          "bucket": "K1",
          "cache_key": "none",
          "decision": "ACCEPT-as-real",
          "estimated_real_gain": "",
          "hit_rate_trace": "",
          "id_audit": "",
          "skew_robustness": ""
        },
        "validation": "quick"
      },
      "scope": [
        "kernel",
        "kernel/config.ini"
      ]
    },
    "round": 2,
    "started_at": "2026-12-03T15:37:01.310Z",
    "step": "decide"
  },
  "phase": "OPTIMIZE",
  "version": 1
}
)state"},
      {"an accept, after its snapshot",
       std::string(R"state({
  "baseline_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_round": 1,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 0,
  )state") + frozen + R"state(,
  "last_round": 2,
  "ledger_seq": 11,
  "open_round": {
    "config_only": false,
    "declared_files": [
      "kernel/config.ini"
    ],
    "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
    "number": 2
  },
  "pending": {
    "detail": {
      "accept": true,
      "after_seq": 11,
      "declared": [
        "kernel/config.ini"
      ],
      "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
      "message": "[optimize] round-2: speed knob\n\nHypothesis: I expect more TFLOPS because the knob is faster\nForward TFLOPS: 100.079 -> 124.907\nCampaign: /tmp/kopt-engine-y4Ov2Z/repo/.kopt/campaigns/fake_gemm_cpu_cpu_20260412",
      "record": {
        "aggregate": {
          "baseline": 100.07854287046676,
          "best": 100.07854287046676,
          "delta_vs_baseline_pct": 24.808529126525624,
          "delta_vs_best_pct": 24.853637698185473,
          "metric": "Forward TFLOPS",
          "pass_count": 4,
          "shape_count": 4,
          "value": 124.90655732788893
        },
        "attribution": "the knob",
        "campaign": "fake_gemm_cpu_cpu_20260412",
        "commit": "",
        "decision_reason": "geomean ratio +24.85% (CI +24.55% .. +25.16%), no shape REGRESSED, PASS set kept",
        "description": "speed knob",
        "flags": [],
        "gate_verdict": "ACCEPT",
        "hypothesis": {
          "bottleneck": "",
          "change": "speed knob",
          "config_only": false,
          "expected_effect": {
            "direction": "increase",
            "metric": "Forward TFLOPS",
            "size_pct": 10.0
          },
          "files": [
            "kernel/config.ini"
          ],
          "risk": "",
          "rule11_bucket": "K1",
          "statement": "I expect more TFLOPS because the knob is faster"
        },
        "key_finding": "speed knob",
        "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
        "next_direction": "tile sizes",
        "number": 2,
        "shapes": [
          {
            "check": "PASS",
            "ci_high_pct": 25.26102543130142,
            "ci_low_pct": 24.67902000978355,
            "delta_vs_best_pct": 24.969683908519325,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "64"
              ],
              [
                "N",
                "64"
              ],
              [
                "K",
                "64"
              ]
            ],
            "label": "s1",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.0483725,
                "value": 124.89
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.8900282909262,
            "verdict": "IMPROVED"
          },
          {
            "check": "PASS",
            "ci_high_pct": 25.587983383799795,
            "ci_low_pct": 23.87226914788796,
            "delta_vs_best_pct": 24.727176186501264,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "128"
              ],
              [
                "N",
                "128"
              ],
              [
                "K",
                "128"
              ]
            ],
            "label": "s2",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.04553875,
                "value": 124.87549999999999
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.87557955976801,
            "verdict": "IMPROVED"
          },
          {
            "check": "PASS",
            "ci_high_pct": 25.31775717061784,
            "ci_low_pct": 24.415233151881253,
            "delta_vs_best_pct": 24.86567973808198,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "96"
              ],
              [
                "N",
                "80"
              ],
              [
                "K",
                "72"
              ]
            ],
            "label": "s3",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.05485605,
                "value": 124.965
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.96477073092522,
            "verdict": "IMPROVED"
          },
          {
            "check": "PASS",
            "ci_high_pct": 25.729371721304737,
            "ci_low_pct": 23.98100806411754,
            "delta_vs_best_pct": 24.852129534403677,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "16"
              ],
              [
                "N",
                "256"
              ],
              [
                "K",
                "128"
              ]
            ],
            "label": "s4",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.05340175,
                "value": 124.896
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.89586968408088,
            "verdict": "IMPROVED"
          }
        ],
        "status": "ACCEPTED",
        "timestamp": "2026-12-03 15:37",
        "transfer": {
          "benchmark_gain": "+24.854%",
          "bucket": "K1",
          "cache_key": "none",
          "decision": "ACCEPT-as-real",
          "estimated_real_gain": "",
          "hit_rate_trace": "",
          "id_audit": "",
          "skew_robustness": ""
        },
        "validation": "quick"
      },
      "scope": [
        "kernel",
        "kernel/config.ini"
      ],
      "snapshot_done": true
    },
    "round": 2,
    "started_at": "2026-12-03T15:37:01.310Z",
    "step": "decide"
  },
  "phase": "OPTIMIZE",
  "version": 1
}
)state"},
      {"an accept, after its commit",
       std::string(R"state({
  "baseline_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_round": 1,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 0,
  )state") + frozen + R"state(,
  "last_round": 2,
  "ledger_seq": 11,
  "open_round": {
    "config_only": false,
    "declared_files": [
      "kernel/config.ini"
    ],
    "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
    "number": 2
  },
  "pending": {
    "detail": {
      "accept": true,
      "after_seq": 11,
      "commit": "29768acbae3789b12347b0f5275f02dc13fcd939",
      "declared": [
        "kernel/config.ini"
      ],
      "git_done": true,
      "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
      "message": "[optimize] round-2: speed knob\n\nHypothesis: I expect more TFLOPS because the knob is faster\nForward TFLOPS: 100.079 -> 124.907\nCampaign: /tmp/kopt-engine-y4Ov2Z/repo/.kopt/campaigns/fake_gemm_cpu_cpu_20260412",
      "record": {
        "aggregate": {
          "baseline": 100.07854287046676,
          "best": 100.07854287046676,
          "delta_vs_baseline_pct": 24.808529126525624,
          "delta_vs_best_pct": 24.853637698185473,
          "metric": "Forward TFLOPS",
          "pass_count": 4,
          "shape_count": 4,
          "value": 124.90655732788893
        },
        "attribution": "the knob",
        "campaign": "fake_gemm_cpu_cpu_20260412",
        "commit": "",
        "decision_reason": "geomean ratio +24.85% (CI +24.55% .. +25.16%), no shape REGRESSED, PASS set kept",
        "description": "speed knob",
        "flags": [],
        "gate_verdict": "ACCEPT",
        "hypothesis": {
          "bottleneck": "",
          "change": "speed knob",
          "config_only": false,
          "expected_effect": {
            "direction": "increase",
            "metric": "Forward TFLOPS",
            "size_pct": 10.0
          },
          "files": [
            "kernel/config.ini"
          ],
          "risk": "",
          "rule11_bucket": "K1",
          "statement": "I expect more TFLOPS because the knob is faster"
        },
        "key_finding": "speed knob",
        "lineage_head": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
        "next_direction": "tile sizes",
        "number": 2,
        "shapes": [
          {
            "check": "PASS",
            "ci_high_pct": 25.26102543130142,
            "ci_low_pct": 24.67902000978355,
            "delta_vs_best_pct": 24.969683908519325,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "64"
              ],
              [
                "N",
                "64"
              ],
              [
                "K",
                "64"
              ]
            ],
            "label": "s1",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.0483725,
                "value": 124.89
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.8900282909262,
            "verdict": "IMPROVED"
          },
          {
            "check": "PASS",
            "ci_high_pct": 25.587983383799795,
            "ci_low_pct": 23.87226914788796,
            "delta_vs_best_pct": 24.727176186501264,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "128"
              ],
              [
                "N",
                "128"
              ],
              [
                "K",
                "128"
              ]
            ],
            "label": "s2",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.04553875,
                "value": 124.87549999999999
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.87557955976801,
            "verdict": "IMPROVED"
          },
          {
            "check": "PASS",
            "ci_high_pct": 25.31775717061784,
            "ci_low_pct": 24.415233151881253,
            "delta_vs_best_pct": 24.86567973808198,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "96"
              ],
              [
                "N",
                "80"
              ],
              [
                "K",
                "72"
              ]
            ],
            "label": "s3",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.05485605,
                "value": 124.965
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.96477073092522,
            "verdict": "IMPROVED"
          },
          {
            "check": "PASS",
            "ci_high_pct": 25.729371721304737,
            "ci_low_pct": 23.98100806411754,
            "delta_vs_best_pct": 24.852129534403677,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "16"
              ],
              [
                "N",
                "256"
              ],
              [
                "K",
                "128"
              ]
            ],
            "label": "s4",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.05340175,
                "value": 124.896
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 124.89586968408088,
            "verdict": "IMPROVED"
          }
        ],
        "status": "ACCEPTED",
        "timestamp": "2026-12-03 15:37",
        "transfer": {
          "benchmark_gain": "+24.854%",
          "bucket": "K1",
          "cache_key": "none",
          "decision": "ACCEPT-as-real",
          "estimated_real_gain": "",
          "hit_rate_trace": "",
          "id_audit": "",
          "skew_robustness": ""
        },
        "validation": "quick"
      },
      "restored": [
        "kernel/config.ini"
      ],
      "scope": [
        "kernel",
        "kernel/config.ini"
      ],
      "snapshot_done": true
    },
    "round": 2,
    "started_at": "2026-12-03T15:37:01.310Z",
    "step": "decide"
  },
  "phase": "OPTIMIZE",
  "version": 1
}
)state"},
      {"a rollback, after its restore",
       std::string(R"state({
  "baseline_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_commit": "29768acbae3789b12347b0f5275f02dc13fcd939",
  "best_round": 2,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 0,
  )state") + frozen + R"state(,
  "last_round": 3,
  "ledger_seq": 19,
  "open_round": {
    "config_only": false,
    "declared_files": [
      "kernel/config.ini"
    ],
    "lineage_head": "29768acbae3789b12347b0f5275f02dc13fcd939",
    "number": 3
  },
  "pending": {
    "detail": {
      "accept": false,
      "after_seq": 19,
      "commit": "29768acbae3789b12347b0f5275f02dc13fcd939",
      "declared": [
        "kernel/config.ini"
      ],
      "git_done": true,
      "lineage_head": "29768acbae3789b12347b0f5275f02dc13fcd939",
      "record": {
        "aggregate": {
          "baseline": 100.07854287046676,
          "best": 124.90655732788893,
          "delta_vs_baseline_pct": -15.026378450967115,
          "delta_vs_best_pct": -32.003842882998754,
          "metric": "Forward TFLOPS",
          "pass_count": 4,
          "shape_count": 4,
          "value": 85.04036227053706
        },
        "attribution": "the knob",
        "campaign": "fake_gemm_cpu_cpu_20260412",
        "commit": "",
        "decision_reason": "s1: slower by 31.97% (CI -32.29% .. -31.65%), beyond delta 1.50%; s2: slower by 32.01% (CI -32.36% .. -31.67%), beyond delta 1.50%; s3: slower by 32.01% (CI -32.39% .. -31.63%), beyond delta 1.50%; s4: slower by 32.02% (CI -32.27% .. -31.78%), beyond delta 1.50%; candidate aggregate 85.040362 is more than +1.00% below the recorded best 124.906557",
        "description": "speed knob",
        "flags": [],
        "gate_verdict": "ROLLBACK",
        "hypothesis": {
          "bottleneck": "",
          "change": "speed knob",
          "config_only": false,
          "expected_effect": {
            "direction": "increase",
            "metric": "Forward TFLOPS",
            "size_pct": 10.0
          },
          "files": [
            "kernel/config.ini"
          ],
          "risk": "",
          "rule11_bucket": "K1",
          "statement": "I expect more TFLOPS because the knob is faster"
        },
        "key_finding": "speed knob",
        "lineage_head": "29768acbae3789b12347b0f5275f02dc13fcd939",
        "next_direction": "tile sizes",
        "number": 3,
        "rollback": {
          "actual": "-32.004% vs the best (ROLLBACK)",
          "change": "speed knob",
          "expected": "increase Forward TFLOPS by +10.0%",
          "lesson": "measure first",
          "root_cause": "the change slowed the kernel"
        },
        "shapes": [
          {
            "check": "PASS",
            "ci_high_pct": -31.650447215897348,
            "ci_low_pct": -32.28640806573269,
            "delta_vs_best_pct": -31.96917076712653,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "64"
              ],
              [
                "N",
                "64"
              ],
              [
                "K",
                "64"
              ]
            ],
            "label": "s1",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.0454339,
                "value": 85.14535000000001
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 85.14535709809988,
            "verdict": "REGRESSED"
          },
          {
            "check": "PASS",
            "ci_high_pct": -31.666024207113132,
            "ci_low_pct": -32.35782171049536,
            "delta_vs_best_pct": -32.01280286838449,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "128"
              ],
              [
                "N",
                "128"
              ],
              [
                "K",
                "128"
              ]
            ],
            "label": "s2",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.040845099999999995,
                "value": 85.0168
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 85.01682087310994,
            "verdict": "REGRESSED"
          },
          {
            "check": "PASS",
            "ci_high_pct": -31.628670377615585,
            "ci_low_pct": -32.387922529772425,
            "delta_vs_best_pct": -32.00935626741632,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "96"
              ],
              [
                "N",
                "80"
              ],
              [
                "K",
                "72"
              ]
            ],
            "label": "s3",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.04448355,
                "value": 85.07435000000001
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 85.07433279551879,
            "verdict": "REGRESSED"
          },
          {
            "check": "PASS",
            "ci_high_pct": -31.777482704531558,
            "ci_low_pct": -32.26968427568332,
            "delta_vs_best_pct": -32.02402898133979,
            "dims": [
              [
                "B",
                "1"
              ],
              [
                "M",
                "16"
              ],
              [
                "N",
                "256"
              ],
              [
                "K",
                "128"
              ]
            ],
            "label": "s4",
            "metrics": [
              {
                "name": "Forward TFLOPS",
                "stddev": 0.03792645,
                "value": 84.9251
              },
              {
                "name": "Backward TFLOPS",
                "stddev": null,
                "value": null
              }
            ],
            "primary": 84.92509131482768,
            "verdict": "REGRESSED"
          }
        ],
        "status": "ROLLED BACK",
        "timestamp": "2026-12-03 15:37",
        "transfer": {
          "benchmark_gain": "-32.004%",
          "bucket": "K1",
          "cache_key": "none",
          "decision": "REJECT-as-overfit",
          "estimated_real_gain": "",
          "hit_rate_trace": "",
          "id_audit": "",
          "skew_robustness": ""
        },
        "validation": "quick"
      },
      "restored": [
        "kernel/config.ini"
      ],
      "scope": [
        "kernel",
        "kernel/config.ini"
      ],
      "snapshot_done": true
    },
    "round": 3,
    "started_at": "2026-12-03T15:37:03.300Z",
    "step": "decide"
  },
  "phase": "OPTIMIZE",
  "version": 1
}
)state"},
      {"the final acceptance's measurement",
       std::string(R"state({
  "baseline_commit": "2edfac171d104a70b31ea16bc9571d6a7a106d21",
  "best_commit": "29768acbae3789b12347b0f5275f02dc13fcd939",
  "best_round": 2,
  "confirmed_by": "tester",
  "consecutive_rollbacks": 1,
  )state") + frozen + R"state(,
  "last_round": 3,
  "ledger_seq": 23,
  "open_round": null,
  "pending": {
    "detail": {
      "after_seq": 22,
      "artifacts": "/tmp/kopt-engine-y4Ov2Z/repo/.kopt/campaigns/fake_gemm_cpu_cpu_20260412/final",
      "tag": "final"
    },
    "round": 3,
    "started_at": "2026-12-03T15:37:04.000Z",
    "step": "final"
  },
  "phase": "ANALYZE",
  "version": 1
}
)state"},
  };
  return files;
}

}  // namespace kopt::campaign::testing
