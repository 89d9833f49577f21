#!/usr/bin/env python3
"""Writes the campaign scripts of the autotuned RMSNorm (kernels/triton/rmsnorm_tuned.py,
manifests/triton_rmsnorm_tuned_bf16.yaml), for `kopt demo --script` on a GPU machine
(tools/gpu/tuned_campaigns.sh runs them):

- triton_rmsnorm_tuned.json: BASELINE, then four planted rounds, each one edited line:
  A ROW_REVISIT_FRACTION 0.0 -> 0.03 (about 3 % slower on every shape), B SMALL_ROW_PROGRAMS_PER_SM
  1 -> 4 (about x2 on t64k_1k alone), C DX_SCALE 1.0 -> 1.05 (a correctness break), D FWD_NUM_WARPS
  8 -> 2 * 4 (neutral); then final acceptance and the report. `expect` only where the outcome is
  certain: the round numbers, and C's failed tests and rollback.
- triton_rmsnorm_tuned_rounds.json: the same BASELINE, then TURNS turns of B, A, D and an A/A
  (config-only, no edit), for counting power and error rates in one device call. Every edit there
  adds one line above `# ---- end of knobs ----`, so it applies whatever kopt decided before: A adds
  0.03 to ROW_REVISIT_FRACTION, B sets SMALL_ROW_PROGRAMS_PER_SM to 5 minus itself (1 -> 4; if an
  earlier B was accepted, 4 -> 1, the same change backwards), D re-spells FWD_NUM_WARPS. A false
  accept of A or D therefore stacks under later rounds; tools/gpu/tuned_table.py replays the
  edits and decisions to say what each round really changed.

    python3 tools/gpu/campaigns/make_tuned_campaigns.py [TURNS]   # default 6 (24 rounds)
"""
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TURNS = int(sys.argv[1]) if len(sys.argv) > 1 else 6
KERNEL = "kernels/triton/rmsnorm_tuned.py"
ANCHOR = "# ---- end of knobs ----\n"
CD = "${campaign_dir}"

SETUP = [
    {"say": "DEFINE_TARGET from manifests/triton_rmsnorm_tuned_bf16.yaml", "tool": "define_target",
     "args": {"repo_path": "${repo}", "manifest_yaml": "@file:manifests/triton_rmsnorm_tuned_bf16.yaml"},
     "capture": {"campaign_dir": "/campaign_dir"}},
    {"tool": "confirm_target", "args": {"campaign_dir": CD, "confirm": True,
                                        "confirmed_by": "lead engineer (scripted GPU run)"}},
    {"tool": "prepare_environment", "args": {"campaign_dir": CD}},
    {"tool": "read_tips", "args": {"campaign_dir": CD}},
    {"say": "BASELINE with the A/A harness check", "tool": "run_baseline", "args": {"campaign_dir": CD},
     "expect": {"/round": 1}},
    {"tool": "device_info", "args": {}},
]

DIRECTIONS = ["memory: more row tiles in flight per SM", "parallelism: programs per SM by row length",
              "compiler: the autotuner's warps and stages"]

ROUNDS = {
    "A": {"say": "Round A: ROW_REVISIT_FRACTION 0.0 -> 0.03 (planted: about 3 % slower on every shape)",
          "statement": "I expect Backward GB/s to decrease by about 3 % on every shape because each backward program "
                       "walks 3 % of its row tiles a second time (planted extra loads and stores, same result)",
          "change": "ROW_REVISIT_FRACTION 0.0 -> 0.03", "direction": "decrease", "size": 3,
          "edit": ("ROW_REVISIT_FRACTION = 0.0", "ROW_REVISIT_FRACTION = 0.03"),
          "line": "ROW_REVISIT_FRACTION += 0.03  # round A: 3 % of the row tiles walked again\n"},
    "B": {"say": "Round B: SMALL_ROW_PROGRAMS_PER_SM 1 -> 4 (a real change: about x2 on t64k_1k, the rest unchanged)",
          "statement": "I expect Backward GB/s to increase on t64k_1k, about x2, because four backward programs per SM "
                       "keep four times the 1024-element row tiles in flight; rows above 1024 elements do not change",
          "change": "SMALL_ROW_PROGRAMS_PER_SM 1 -> 4", "direction": "increase", "size": 100,
          "edit": ("SMALL_ROW_PROGRAMS_PER_SM = 1", "SMALL_ROW_PROGRAMS_PER_SM = 4"),
          "line": "SMALL_ROW_PROGRAMS_PER_SM = 5 - SMALL_ROW_PROGRAMS_PER_SM  # round B: 1 <-> 4\n"},
    "C": {"say": "Round C: DX_SCALE 1.0 -> 1.05 (planted correctness break: the tests fail, kopt rolls back)",
          "statement": "I expect Backward GB/s to stay the same because scaling dx by 1.05 costs one multiply "
                       "(planted: dx 5 % off must fail the bf16 check)",
          "change": "DX_SCALE 1.0 -> 1.05", "direction": "increase", "size": 1,
          "edit": ("DX_SCALE = 1.0", "DX_SCALE = 1.05"), "line": None},
    "D": {"say": "Round D: FWD_NUM_WARPS 8 -> 2 * 4 (neutral: the same number spelled differently)",
          "statement": "I expect no change in Backward GB/s because FWD_NUM_WARPS 2 * 4 is the same 8 warps "
                       "(a neutral edit of the kernel file)",
          "change": "FWD_NUM_WARPS 8 -> 2 * 4", "direction": "increase", "size": 1,
          "edit": ("FWD_NUM_WARPS = 8", "FWD_NUM_WARPS = 2 * 4"),
          "line": "FWD_NUM_WARPS = 2 * FWD_NUM_WARPS // 2  # round D: no effect\n"},
}


def accept_args(kind):
    args = {"campaign_dir": CD, "attribution": "measured by kopt on the GPU; see the round summary",
            "next_direction": "see the report", "root_cause": "see the per-shape verdicts",
            "lesson": "recorded by kopt", "cache_key": "none", "transfer_decision": "ACCEPT-as-real",
            "estimated_real_gain": "same as benchmark (kernel-internal)"}
    if kind == "B":  # a real change: an AUDIT flag on its jump is confirmed
        args.update({"audit_confirmed_by": "lead engineer (scripted GPU run)",
                     "audit_note": "four programs per SM on 1024-element rows: do_bench shows the same jump"})
    else:  # planted rounds and A/A: an AUDIT flag would be rejected
        args["audit_rejected"] = True
    return args


def round_steps(kind, number, insert, certain):
    """One round: begin_round, the edit, rebuild_kernel, run_tests, validate_round, accept_or_revert,
    termination_check. `insert`: the edit adds ROUNDS[kind]["line"] above the knob block's end."""
    if kind == "AA":
        begin = {"say": "A/A: the same build against itself (config-only, no edit)", "tool": "begin_round",
                 "args": {"campaign_dir": CD, "statement": "I expect no change: this is an A/A check of the gate",
                          "change": "none (A/A)", "expected_size_pct": 1, "rule11_bucket": "K1",
                          "files": [KERNEL], "config_only": True}, "expect": {"/round": number}}
        edits = []
    else:
        r = ROUNDS[kind]
        begin = {"say": r["say"], "tool": "begin_round",
                 "args": {"campaign_dir": CD, "statement": r["statement"], "change": r["change"],
                          "expected_direction": r["direction"], "expected_size_pct": r["size"], "rule11_bucket": "K1",
                          "files": [KERNEL], "config_only": False}, "expect": {"/round": number}}
        if insert:
            edits = [{"edit": {"file": KERNEL, "replace": ANCHOR, "with": r["line"] + ANCHOR}}]
        else:
            edits = [{"edit": {"file": KERNEL, "replace": r["edit"][0], "with": r["edit"][1]}}]
    tests = {"tool": "run_tests", "args": {"campaign_dir": CD}}
    validate = {"tool": "validate_round", "args": {"campaign_dir": CD, "full": True}}
    decide = {"tool": "accept_or_revert", "args": accept_args(kind)}
    if certain and kind == "C":
        tests["expect"] = {"/ok": False}
        validate["expect"] = {"/decision": "ROLLBACK"}
        decide["expect"] = {"/status": "ROLLED BACK"}
    review = {"tool": "termination_check", "args": {"campaign_dir": CD, "directions": DIRECTIONS}}
    return [begin] + edits + [{"tool": "rebuild_kernel", "args": {"campaign_dir": CD}}, tests, validate, decide, review]


FINISH = [
    {"say": "The user stops here (T4)", "tool": "termination_check",
     "args": {"campaign_dir": CD, "user_stop": True, "directions": DIRECTIONS}},
    {"say": "Final acceptance", "tool": "final_acceptance", "args": {"campaign_dir": CD}},
    {"say": "REPORT", "tool": "report", "args": {"campaign_dir": CD}},
    {"tool": "campaign_status", "args": {"campaign_dir": CD}},
]


def write(name, title, kinds, insert):
    steps = copy.deepcopy(SETUP)
    for i, kind in enumerate(kinds):
        steps += round_steps(kind, i + 2, insert, certain=not insert)
    steps += copy.deepcopy(FINISH)
    with open(os.path.join(HERE, name), "w") as f:
        json.dump({"name": title, "kernel_dir": ".", "steps": steps}, f, indent=1)
        f.write("\n")


write("triton_rmsnorm_tuned.json", "autotuned triton rmsnorm: four planted rounds (A 3 % slower, B x2 on one shape, "
      "C correctness break, D neutral)", ["A", "B", "C", "D"], insert=False)
write("triton_rmsnorm_tuned_rounds.json", "autotuned triton rmsnorm: %d turns of B, A, D and A/A" % TURNS,
      ["B", "A", "D", "AA"] * TURNS, insert=True)
