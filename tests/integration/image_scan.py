"""image_scan.py — looks through a `docker save` archive for what must never
ship in an image: SQLite databases and secrets.

    image_scan.py ARCHIVE SECRET_FILE...

Reads every file of every layer (and the image configs and manifests, which
hold ENV, build arguments and history): a file that begins with the SQLite
magic "SQLite format 3\\0" is a database; a file that contains a line of a
SECRET_FILE (tokens, one per line) leaks it. Prints each finding as
"ARCHIVE-member: layer-path: what" and exits 1 if there is any, else prints
what it read and exits 0.
"""
import sys
import tarfile

MAGIC = b"SQLite format 3\x00"


def scan_bytes(where, data, secrets, found):
    if data.startswith(MAGIC):
        found.append("%s: SQLite database" % where)
    for name, s in secrets:
        if s in data:
            found.append("%s: contains the secret of %s" % (where, name))


def main():
    archive, secret_files = sys.argv[1], sys.argv[2:]
    secrets = []
    for f in secret_files:
        for line in open(f, "rb"):
            line = line.strip()
            if line:
                secrets.append((f, line))
    if not secrets:
        sys.exit("image_scan: no secrets to look for")
    found = []
    files = 0
    layers = 0
    with tarfile.open(archive) as outer:
        for m in outer:
            if not m.isfile():
                continue
            if m.name.endswith(".tar"):
                layers += 1
                with tarfile.open(fileobj=outer.extractfile(m)) as layer:
                    for lm in layer:
                        if lm.isfile():
                            files += 1
                            scan_bytes("%s: /%s" % (m.name, lm.name),
                                       layer.extractfile(lm).read(), secrets, found)
            else:
                scan_bytes(m.name, outer.extractfile(m).read(), secrets, found)
    for f in found:
        print(f)
    if found:
        sys.exit(1)
    print("%d layers, %d files: no database, no secret" % (layers, files))


if __name__ == "__main__":
    main()
