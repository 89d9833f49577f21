#!/usr/bin/env python3
"""Reads a PNG (as rsvg-convert writes it: 8-bit RGB or RGBA, non-interlaced) with nothing but
zlib, and says whether it is blank. Used by the report tests to check that a chart rendered to
real pixels, not to an empty canvas.

usage: png_stats.py FILE [--min-ink FRACTION] [--min-colours N] [--expect-colour RRGGBB ...]
Prints one JSON object (width, height, ink_fraction, distinct_colours, found_colours) and exits
0 when every expectation holds, 1 otherwise, 2 on a file it cannot read.
"""
import json
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace != 0:
        raise ValueError("unsupported PNG layout: depth %d colour type %d interlace %d" % (depth, colour_type, interlace))
    bpp = 4 if colour_type == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        ftype = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 0xFF
            elif ftype == 2:
                line[x] = (line[x] + b) & 0xFF
            elif ftype == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    path, min_ink, min_colours, expected = argv[1], 0.01, 4, []
    args = argv[2:]
    while args:
        flag = args.pop(0)
        if flag == "--min-ink":
            min_ink = float(args.pop(0))
        elif flag == "--min-colours":
            min_colours = int(args.pop(0))
        elif flag == "--expect-colour":
            expected.append(args.pop(0).lower().lstrip("#"))
        else:
            print("unknown option " + flag, file=sys.stderr)
            return 2
    try:
        width, height, bpp, rows = read_png(path)
    except (OSError, ValueError, zlib.error, TypeError, struct.error) as e:
        print(json.dumps({"file": path, "error": str(e)}))
        return 2
    colours, ink = {}, 0
    for row in rows:
        for x in range(0, len(row), bpp):
            r, g, b = row[x], row[x + 1], row[x + 2]
            alpha = row[x + 3] if bpp == 4 else 255
            if alpha < 16:
                continue  # transparent counts as background
            key = "%02x%02x%02x" % (r, g, b)
            colours[key] = colours.get(key, 0) + 1
            if not (r > 245 and g > 245 and b > 245):
                ink += 1
    found = [c for c in expected if c in colours]
    stats = {
        "file": path,
        "width": width,
        "height": height,
        "ink_fraction": round(ink / float(width * height), 5),
        "distinct_colours": len(colours),
        "found_colours": found,
        "missing_colours": [c for c in expected if c not in colours],
    }
    print(json.dumps(stats))
    ok = stats["ink_fraction"] >= min_ink and len(colours) >= min_colours and len(found) == len(expected)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
