#!/usr/bin/env bash
# The quick harness's FORWARD_SAVES convention (harness/CONTRACT.md): a kernel module that sets
# FORWARD_SAVES = True returns (outputs, saved) from forward, and its backward gets saved= from a
# forward run on the same inputs before the timed call; the outputs alone are what is checked and
# counted. A module without it is called as before, and a forward that breaks the promise raises
# the harness's configuration error, naming the function. Plain Python stand-ins, no torch.
source "$(dirname "$0")/lib/common.sh"
: "${KOPT_SOURCE_DIR:?set KOPT_SOURCE_DIR to the source tree}"
python3 - "$KOPT_SOURCE_DIR/harness/python/quick_test_bench.py" <<'PY'
import importlib.util, sys, types

spec = importlib.util.spec_from_file_location("qtb", sys.argv[1])
qtb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(qtb)
cfg = {"KIND": "memory", "FORWARD": "forward", "BACKWARD": "backward"}


def module(saves, forward):
    m = types.ModuleType("rmsnorm_hooks")
    if saves is not None:
        m.FORWARD_SAVES = saves
    m.make_inputs = m.reference_forward = lambda *a: None
    m.forward = forward
    m.backward = lambda x, w, g, saved=None: ("dx", x, w, g, saved)
    return m


calls = []
def saving_forward(x, w):
    calls.append((x, w))
    return "y", {"rstd": "rstd-of-" + x}


op = qtb.Op(cfg, module(True, saving_forward), None, None)
assert op.forward(("x", "w")) == ("y",), "the outputs alone are the forward's result"
run = op.prepare_backward(("x", "w"), ("g",))
assert calls == [("x", "w"), ("x", "w")], "the backward's forward runs before its call: %r" % calls
assert run() == ("dx", "x", "w", "g", {"rstd": "rstd-of-x"}), "backward got what the forward saved"
assert len(calls) == 2, "the timed call is the backward alone"

plain = qtb.Op(cfg, module(None, lambda x, w: ("y1", "y2")), None, None)
assert plain.forward(("x", "w")) == ("y1", "y2"), "without FORWARD_SAVES a tuple is the outputs, as before"
assert plain.prepare_backward(("x", "w"), ("g",))() == ("dx", "x", "w", "g", None), "and backward gets no saved="
assert not qtb.Op(cfg, module("yes", saving_forward), None, None).forward_saves, "only True turns it on"

broken = qtb.Op(cfg, module(True, lambda x, w: "y"), None, None)
try:
    broken.forward(("x", "w"))
    raise SystemExit("FAIL: a forward that returned no (outputs, saved) pair was taken")
except qtb.HarnessError as e:
    assert e.exit_code == 2 and "FORWARD_SAVES = True: forward must return (outputs, saved)" in str(e), e
print("PASS: FORWARD_SAVES hands the forward's saved tensors to the backward; modules without it unchanged")
PY
