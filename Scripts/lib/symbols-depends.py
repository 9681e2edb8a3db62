#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Depends for programs built for another architecture, from that release's root (Scripts/package).

What dpkg-shlibdeps computes from a library's symbols file, for a root it cannot look into (it
finds libraries and their packages in this machine's dpkg database only): for each library the
programs need (their DT_NEEDED), the symbols file of the package that ships it in ROOT
(var/lib/dpkg/info/*.symbols), and in it the version that introduced each symbol the programs
import; the dependency is that file's template with the highest of those versions. A library with
no symbols file falls back to its package's shlibs line, as dpkg-shlibdeps does. So a program that
uses only old symbols of libsystemd0 does not ask for the version the root happens to hold.

    symbols-depends.py ROOT PROGRAM...   prints the Depends line
"""
import re
import subprocess
import sys
from functools import cmp_to_key
from pathlib import Path


def compare(a, b):
    """dpkg's order of two versions."""
    if a == b:
        return 0
    return -1 if subprocess.run(["dpkg", "--compare-versions", a, "lt", b]).returncode == 0 else 1


def highest(versions):
    return max(versions, key=cmp_to_key(compare))


def symbols_files(root):
    """Every library section of the root's symbols files: soname -> (template, {symbol: minver})."""
    libraries = {}
    for path in sorted((root / "var/lib/dpkg/info").glob("*.symbols")):
        current = None
        for line in path.read_text(errors="replace").splitlines():
            if not line or line.startswith("#"):
                continue
            if line.startswith(" "):
                if current is not None:
                    fields = line.split()
                    if len(fields) >= 2:
                        current[1][fields[0]] = fields[1]
            elif line[0] in "|*":
                continue  # alternative dependencies and meta fields: the first template is kept
            else:
                soname, template = line.split(None, 1)
                current = libraries.setdefault(soname, (template.strip(), {}))
    return libraries


def shlibs(root, soname):
    name, _, major = soname.partition(".so.")
    for path in sorted((root / "var/lib/dpkg/info").glob("*.shlibs")):
        for line in path.read_text(errors="replace").splitlines():
            fields = line.split(None, 2)
            if len(fields) == 3 and fields[0] == name and fields[1] == major:
                return fields[2].strip()
    return None


def imports(program):
    """The program's needed libraries and the symbols it imports ("name@VERSION" or "name@Base")."""
    dynamic = subprocess.run(["readelf", "-d", program], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", dynamic)
    table = subprocess.run(["readelf", "-W", "--dyn-syms", program], capture_output=True, text=True, check=True).stdout
    symbols = set()
    for line in table.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[6] == "UND":
            name = fields[7]
            symbols.add(name if "@" in name else name + "@Base")
    return needed, symbols


def main():
    root, programs = Path(sys.argv[1]), sys.argv[2:]
    libraries = symbols_files(root)
    needed, used = set(), set()
    for program in programs:
        libs, symbols = imports(program)
        needed.update(libs)
        used.update(symbols)
    dependencies = {}  # package -> the highest minimum version ("" for none)
    for soname in sorted(needed):
        if soname.startswith("ld-linux"):
            continue  # the dynamic loader is libc6's, which libc.so.6 names
        if soname in libraries:
            template, table = libraries[soname]
            # Each distinct version once: dpkg compares them, one process a comparison.
            versions = {table[s] for s in used if s in table and table[s] not in ("0", "")}
            minimum = highest(versions) if versions else ""
            if "#MINVER#" not in template:
                entries = [template]
            else:
                entries = [template.replace("#MINVER#", "").strip() + (f" (>= {minimum})" if minimum else "")]
        else:
            line = shlibs(root, soname)
            if line is None:
                sys.exit(f"symbols-depends: no package of {root} declares {soname}")
            entries = [e.strip() for e in line.split(",")]
        for entry in entries:
            match = re.fullmatch(r"(\S+)(?: \(>= (\S+)\))?", entry)
            if not match:
                dependencies.setdefault(entry, "")
                continue
            package, version = match.group(1), match.group(2) or ""
            old = dependencies.get(package, "")
            dependencies[package] = highest([old, version]) if old and version else (version or old)
    print(", ".join(f"{p} (>= {v})" if v else p for p, v in sorted(dependencies.items())))


if __name__ == "__main__":
    main()
