#!/usr/bin/env python3
"""One line per round of a finished (or cut short) scripted campaign on kernels/triton/rmsnorm_tuned.py:

    python3 tools/gpu/tuned_table.py --script S.json --campaign CAMPAIGN_DIR --kernel BASE_KERNEL.py
                                     [--transcript LOG] [--json OUT.json]

Per round: its number, what it changed (the hypothesis' change, and the knobs that really differ
between the best and the candidate, found by replaying the script's edits on BASE_KERNEL.py from
round to round: an edit kept when kopt accepted the round, dropped when it rolled back), kopt's
decision (decision.json), every shape's verdict with its delta and interval, validate_round's
seconds (from a transcript whose lines start with a Unix time, as tuned_campaigns.sh writes it),
and the autotuned configs the round's workers reported (the harness's "autotune:" lines in the
worker logs, per arm; more than one config for a shape in one arm is flagged). --json writes the
rounds' decision.json objects and the report's path. Standard library only.
"""
import argparse
import glob
import json
import os
import re
import sys

KNOB_START, KNOB_END = "# ---- knobs", "# ---- end of knobs"
AUTOTUNE_LINE = re.compile(r"quick_test_bench: autotune: (\S+): (.*?); (?:waited|ran without)")


def knobs(text):
    """The module constants between the knob markers, evaluated."""
    try:
        block = text[text.index(KNOB_START):text.index(KNOB_END)]
    except ValueError:
        return {}
    scope = {}
    try:
        exec(compile(block, "<knobs>", "exec"), scope)
    except Exception as e:  # an edit that broke the block: say so instead of guessing
        return {"<error>": repr(e)}
    return {k: v for k, v in scope.items() if k.isupper()}


def rounds_of(script):
    """[(round number, begin_round args, [edits])] in script order."""
    out, current = [], None
    for step in script.get("steps", []):
        if step.get("tool") == "begin_round":
            number = (step.get("expect") or {}).get("/round") or (out[-1][0] + 1 if out else 2)
            current = (number, step.get("args", {}), [])
            out.append(current)
        elif "edit" in step and current is not None:
            current[2].append(step["edit"])
    return out


def apply(text, edits):
    for e in edits:
        if text.count(e["replace"]) != 1:
            return None  # the demo refuses such an edit too
        text = text.replace(e["replace"], e["with"])
    return text


def validate_seconds(transcript):
    """validate_round's wall time per call, in order: from its '-> validate_round' line to the
    next '<-' line."""
    if not transcript or not os.path.exists(transcript):
        return []
    out, start = [], None
    for line in open(transcript, errors="replace"):
        m = re.match(r"(\d+\.\d+) (.*)", line)
        if not m:
            continue
        t, rest = float(m.group(1)), m.group(2)
        if rest.strip() == "-> validate_round":
            start = t
        elif start is not None and rest.lstrip().startswith("<-"):
            out.append(t - start)
            start = None
    return out


def autotune_configs(round_dir):
    """{arm: {label: {config: count}}} from the round's worker logs."""
    seen = {}
    for path in glob.glob(os.path.join(round_dir, "artifacts", "runs", "*.log")):
        arm = "candidate" if path.endswith("-candidate.log") else "best" if path.endswith("-best.log") else "other"
        for line in open(path, errors="replace"):
            m = AUTOTUNE_LINE.search(line)
            if m:
                cfgs = seen.setdefault(arm, {}).setdefault(m.group(1), {})
                cfgs[m.group(2)] = cfgs.get(m.group(2), 0) + 1
    return seen


def short_config(text):
    """'_rmsnorm_bwd_kernel = TILE: 1024, num_warps: 8, num_ctas: 1, num_stages: 2, maxnreg: None' -> 'TILE 1024 w8 s2'."""
    parts = dict(re.findall(r"(\w+): ([^,|;]+)", text))
    if "num_warps" not in parts:
        return text
    extra = " ".join("%s %s" % (k, v.strip()) for k, v in parts.items()
                     if k not in ("num_warps", "num_stages", "num_ctas", "maxnreg", "ir_override"))
    return ("%s w%s s%s" % (extra, parts["num_warps"].strip(), parts.get("num_stages", "?").strip())).strip()


def print_autotune(round_dir, title=None):
    """The round's autotune lines, one per arm: each shape's configs and how many workers said so."""
    seen = autotune_configs(round_dir)
    if title and seen:
        print(title)
    for arm, labels in sorted(seen.items()):
        texts = []
        for label, cfgs in labels.items():
            flag = " (SEVERAL)" if len(cfgs) > 1 else ""
            texts.append("%s %s%s" % (label, " | ".join("%s x%d" % (short_config(c), n) for c, n in cfgs.items()), flag))
        print("    autotune %s: %s" % (arm, "; ".join(texts)))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--script", required=True)
    ap.add_argument("--campaign", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--transcript", default="")
    ap.add_argument("--json", default="")
    a = ap.parse_args(argv)
    script = json.load(open(a.script))
    best_text = open(a.kernel).read()
    seconds = validate_seconds(a.transcript)
    name = os.path.basename(os.path.normpath(a.campaign))
    print("# %s (%s)" % (name, script.get("name", "")))
    print("# round | change | knobs best -> candidate | decision | per-shape verdicts | validate_round s")
    decisions, k = [], 0
    print_autotune(os.path.join(a.campaign, "rounds", "round-1"), "round 1 (BASELINE, the A/A sessions)")
    for number, args, edits in rounds_of(script):
        rdir = os.path.join(a.campaign, "rounds", "round-%d" % number)
        path = os.path.join(rdir, "decision.json")
        if not os.path.exists(path):
            if os.path.isdir(rdir):
                print("round %d | %s | (no decision.json: the campaign stopped in this round)" % (number, args.get("change")))
            break
        d = json.load(open(path))
        decisions.append(d)
        cand_text = apply(best_text, edits) if edits else best_text
        before, after = knobs(best_text), knobs(cand_text or "")
        changed = ["%s %r -> %r" % (key, before.get(key), after.get(key)) for key in sorted(set(before) | set(after))
                   if before.get(key) != after.get(key)]
        cells = []
        for s in d.get("shapes", []):
            delta, lo, hi = s.get("delta_vs_best_pct"), s.get("ci_low_pct"), s.get("ci_high_pct")
            cell = "%s %s" % (s.get("label"), s.get("verdict") or "-")
            if delta is not None:
                cell += " %+.2f%%" % delta
            if lo is not None and hi is not None:
                cell += " [%+.1f, %+.1f]" % (lo, hi)
            if s.get("check") not in (None, "PASS"):
                cell += " " + str(s.get("check"))
            cells.append(cell)
        secs = ("%.1f" % seconds[k]) if k < len(seconds) else "?"
        k += 1
        print("round %d | %s | %s | %s | %s | %s" % (number, args.get("change"), "; ".join(changed) or "none",
                                                      d.get("status"), "; ".join(cells) or d.get("reason", ""), secs))
        print_autotune(rdir)
        if str(d.get("status", "")).startswith("ACCEPTED") and cand_text is not None:
            best_text = cand_text
    report = os.path.join(a.campaign, "report.md")
    print("# report: %s" % (report if os.path.exists(report) else "(none written)"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"campaign": name, "script": script.get("name", ""), "rounds": decisions,
                       "validate_round_s": seconds, "report": report if os.path.exists(report) else None}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
