import os, shutil, sys
cfg = open("kernel/config.ini").read()
if "build_error=1" in cfg:
    print("error: the kernel does not compile", file=sys.stderr)
    sys.exit(2)
os.makedirs("build", exist_ok=True)
shutil.copyfile("kernel/config.ini", "build/config.ini.tmp")
os.replace("build/config.ini.tmp", "build/config.ini")
print("built")
