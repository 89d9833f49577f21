# cmake -DIN=<file.hip> -DOUT=<file.cpp> -P to_cpp.cmake
# Rewrites triple-chevron launches for the CPU emulation (device/hip_portability.h here):
#   name<tmpl><<<grid, block, shared, stream>>>(args)  ->  emuLaunch(name<tmpl>, grid, block, shared, stream)(args)
file(READ "${IN}" text)
string(REGEX REPLACE "([A-Za-z_][A-Za-z_0-9:]*(<[^<>]*>)?)<<<([^>]*)>>>\\(" "emuLaunch(\\1, \\3)(" text "${text}")
file(WRITE "${OUT}" "#line 1 \"${IN}\"\n${text}")
