#!/usr/bin/env python3
"""The gate experiment's tally from a finished campaign's records (issue 11's A/A and planted rows):

    python3 tools/gpu/gate_rounds.py CAMPAIGN_DIR [CAMPAIGN_DIR ...]

A round is an A/A round when its hypothesis is config-only (the same build against itself) and a
planted round when its statement says "planted"; the planted shape is named in the statement.
Per round it prints the decision, the looks it took (the worker sessions of its measurement
records: a look that measures again appends a session to the same record) and the pairs, and each
shape's verdict as kopt's validation record gives it
(REGRESSED, INCONCLUSIVE, BLIND, or SAME when the record names nothing against the shape), then
the totals: false ACCEPTs and false REGRESSED in A/A rounds, the plant caught, and any other shape
REGRESSED in a planted round. Standard library only; reads rounds/round-N/hypothesis.json and
rounds/round-N/artifacts/validation.json and measurement-*.json."""
import glob
import json
import os
import re
import sys

CODES = {"shape_regressed": "REGRESSED", "shape_inconclusive": "INCONCLUSIVE", "shape_blind": "BLIND"}


def shapes_of(campaign):
    """The manifest's shape labels, in order (a line `- label: NAME` or `label: NAME`)."""
    try:
        text = open(os.path.join(campaign, "manifest.yaml")).read()
    except OSError:
        return []
    return re.findall(r"^\s*-?\s*label:\s*\"?([A-Za-z0-9_.-]+)", text, re.M)


def looks_and_pairs(artifacts, tags):
    """(distinct worker sessions, pairs) over a round's measurement records."""
    sessions, pairs = set(), 0
    for tag in tags:
        try:
            record = json.load(open(os.path.join(artifacts, "measurement-%s.json" % tag)))
        except (OSError, ValueError):
            continue
        for pair in record.get("pairs", []):
            sessions.add((tag, pair.get("session")))
            pairs += 1
    return len(sessions), pairs


def round_rows(campaign):
    rows = []
    for path in sorted(glob.glob(os.path.join(campaign, "rounds", "round-*", "artifacts", "validation.json")),
                       key=lambda p: int(re.search(r"round-(\d+)", p).group(1))):
        rdir = os.path.dirname(os.path.dirname(path))
        try:
            hyp = json.load(open(os.path.join(rdir, "hypothesis.json")))
            val = json.load(open(path))
        except (OSError, ValueError):
            continue
        statement = hyp.get("statement", "")
        if hyp.get("config_only"):
            kind, planted = "A/A", None
        elif "planted" in statement.lower():
            kind = "planted"
            m = re.search(r"on (\S+) only", statement) or re.search(r"on (\S+)", statement)
            planted = m.group(1) if m else None
        else:
            kind, planted = "other", None
        verdicts, ratios = {}, {}
        for reason in val.get("reasons", []):
            label, code = reason.get("label", ""), reason.get("code", "")
            if code in CODES and label:
                # INCONCLUSIVE or REGRESSED outranks BLIND (a blind shape is also measured)
                if verdicts.get(label) in (None, "BLIND"):
                    verdicts[label] = CODES[code]
                m = re.search(r"ratio ([-+]?\d+\.\d+)%", reason.get("message", ""))
                if m:
                    ratios[label] = float(m.group(1))
                m = re.search(r"slower by (\d+\.\d+)%", reason.get("message", ""))
                if m and code == "shape_regressed":
                    ratios[label] = -float(m.group(1))
        looks, pairs = looks_and_pairs(os.path.dirname(path), val.get("measurements", []))
        rows.append({"round": val.get("round"), "kind": kind, "planted": planted, "decision": val.get("decision"),
                     "looks": looks, "pairs": pairs, "verdicts": verdicts, "ratios": ratios})
    return rows


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    totals = {"A/A": 0, "false_accept": 0, "false_regressed": 0, "planted": 0, "caught": 0, "other_regressed": 0}
    for campaign in argv:
        labels = shapes_of(campaign)
        print("# %s" % campaign)
        for r in round_rows(campaign):
            names = labels or sorted(r["verdicts"])
            cells = []
            for label in names:
                v = r["verdicts"].get(label, "SAME")
                ratio = r["ratios"].get(label)
                cells.append("%s %s%s" % (label, v, "" if ratio is None else " (%+.2f %%)" % ratio))
            print("round %s %-7s %-9s %d look%s %2d pairs  %s" % (r["round"], r["kind"], r["decision"], r["looks"],
                                                                " " if r["looks"] == 1 else "s", r["pairs"],
                                                                "; ".join(cells)))
            regressed = {label for label, v in r["verdicts"].items() if v == "REGRESSED"}
            if r["kind"] == "A/A":
                totals["A/A"] += 1
                totals["false_accept"] += "ACCEPT" in str(r["decision"])
                totals["false_regressed"] += bool(regressed)
            elif r["kind"] == "planted":
                totals["planted"] += 1
                totals["caught"] += r["planted"] in regressed
                totals["other_regressed"] += bool(regressed - {r["planted"]})
    print("A/A rounds %(A/A)d: false ACCEPT %(false_accept)d, a shape REGRESSED %(false_regressed)d; planted rounds "
          "%(planted)d: plant REGRESSED %(caught)d, another shape REGRESSED %(other_regressed)d" % totals)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
