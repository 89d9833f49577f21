#!/usr/bin/env python3
"""Assertions on one Inspector `--format json` answer read from stdin, for the e2e shell tests.

usage: assert_json.py CHECK [ARG ...]
  tools-include NAME...          result.tools has every NAME
  resources-include URI...       result.resources has every URI
  templates-include TEMPLATE...  result.resourceTemplates has every uriTemplate
  prompts-include NAME...        result.prompts has every NAME, each with a description
  contents MIME TEXT             result.contents[0] has mimeType MIME and its text contains TEXT
  prompt-text TEXT...            result.messages[0].content.text contains every TEXT and no '{{'
Exit 0 when the check holds, 1 (with the reason on stderr) when it does not.
"""
import json
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    check, args = argv[1], argv[2:]
    raw = sys.stdin.read()
    try:
        result = json.loads(raw)["result"]
    except (ValueError, KeyError, TypeError) as e:
        print("not an Inspector JSON result (%s): %s" % (e, raw[:500]), file=sys.stderr)
        return 1

    def missing(have, want, what):
        gone = [w for w in want if w not in have]
        if gone:
            print("%s missing: %s (have: %s)" % (what, gone, sorted(have)[:40]), file=sys.stderr)
            return 1
        return 0

    if check == "tools-include":
        return missing({t["name"] for t in result["tools"]}, args, "tools")
    if check == "resources-include":
        return missing({r["uri"] for r in result["resources"]}, args, "resources")
    if check == "templates-include":
        return missing({t["uriTemplate"] for t in result["resourceTemplates"]}, args, "templates")
    if check == "prompts-include":
        prompts = result["prompts"]
        if any(not p.get("description") for p in prompts):
            print("a prompt has no description", file=sys.stderr)
            return 1
        return missing({p["name"] for p in prompts}, args, "prompts")
    if check == "contents":
        mime, text = args
        c = result["contents"][0]
        if c.get("mimeType") != mime or text not in c.get("text", ""):
            print("contents: want %s containing %r, got %s" % (mime, text, json.dumps(c)[:500]), file=sys.stderr)
            return 1
        return 0
    if check == "prompt-text":
        text = result["messages"][0]["content"]["text"]
        gone = [t for t in args if t not in text]
        if gone or "{{" in text:
            print("prompt text: missing %s or unfilled placeholder in %r" % (gone, text[:300]), file=sys.stderr)
            return 1
        return 0
    print("unknown check " + check, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
