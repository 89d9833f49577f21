import sys
cfg = open("build/config.ini").read()
if "correct=0" in cfg:
    print("FAILED: wrong results on every shape")
    sys.exit(1)
print("4 passed")
