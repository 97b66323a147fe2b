#!/usr/bin/env python3
"""embed_bytes.py IN OUT NAME: OUT, a C file defining NAME (the bytes of IN,
NUL-terminated) and NAME_len (their number, without the NUL)."""
import sys

src, out, name = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(src, "rb").read()
with open(out, "w") as f:
    f.write("/* Generated from %s by server/embed_bytes.py; do not edit. */\n" % src)
    f.write("#include <stddef.h>\n")
    f.write("extern const char %s[];\nextern const size_t %s_len;\n" % (name, name))
    f.write("const char %s[] = {\n" % name)
    for i in range(0, len(data), 16):
        f.write("    " + ", ".join("0x%02x" % b for b in data[i:i + 16]) + ",\n")
    f.write("    0x00};\nconst size_t %s_len = %d;\n" % (name, len(data)))
