# SPDX-License-Identifier: Apache-2.0
"""Killed mutants' verdicts, kept by what they depend on (Scripts/mutants).

A verdict is kept under the mutant's identity (its name, file and both texts, its tests) with the
test file that killed it (of several, the one whose verdict depends on the fewest files: any one
failing kills the mutant). It holds while the key computed now equals the key it was stored with:

    the toolchain's version, Package.swift, Package.resolved, the mutant's own texts;
    every file of the mutated module and of the modules it depends on;
    the killing test files, the helpers of their test targets (files that declare no test and
    non-Swift files there), every file of the modules those test files import and their
    dependencies; the programs and their modules when the killing tests run the programs.

A change anywhere else keeps the verdict; a survivor is never kept.
"""
import functools
import hashlib
import json
import os
import re
import subprocess

IMPORT = re.compile(r"^\s*(?:@testable\s+|@_spi\([^)]*\)\s+)*import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


class PackageGraph:
    """The package's local targets: folder, kind and the local targets each depends on."""

    def __init__(self, root):
        self.root = root
        dump = subprocess.run(["swift", "package", "dump-package"], cwd=root, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, check=True, encoding="utf-8")
        manifest = json.loads(dump.stdout)
        self.folders, self.kinds, self.dependencies = {}, {}, {}
        for target in manifest["targets"]:
            name, kind = target["name"], target["type"]
            default = "Tests" if kind == "test" else "Sources"
            self.folders[name] = target.get("path") or os.path.join(default, name)
            self.kinds[name] = kind
            names = []
            for dependency in target.get("dependencies", []):
                for key in ("byName", "target"):
                    if key in dependency:
                        names.append(dependency[key][0])
            self.dependencies[name] = names

    def closure(self, names):
        seen, stack = set(), [n for n in names if n in self.folders]
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            stack += [d for d in self.dependencies.get(name, []) if d in self.folders]
        return seen

    def target_of(self, path):
        """The target whose folder holds `path` (relative to the root)."""
        best = None
        for name, folder in self.folders.items():
            if path.startswith(folder.rstrip("/") + "/") and (best is None or len(folder) > len(self.folders[best])):
                best = name
        return best

    def executables(self):
        return [n for n, k in self.kinds.items() if k == "executable"]

    def files(self, name):
        folder = os.path.join(self.root, self.folders[name])
        found = []
        for directory, folders, names in os.walk(folder):
            folders.sort()
            found += [os.path.relpath(os.path.join(directory, n), self.root) for n in sorted(names)]
        return found


def test_file_paths(root):
    """Test files by their base name (Swift Testing names a failure's file by it)."""
    paths = {}
    for directory, _, names in os.walk(os.path.join(root, "Tests")):
        for name in names:
            if name.endswith(".swift"):
                paths[name] = os.path.relpath(os.path.join(directory, name), root)
    return paths


def killing_files(output, paths):
    """The test files named in a failing run's issues (`✘ Test … recorded an issue at F.swift:L:C`)."""
    names = set(re.findall(r"recorded an issue at ([A-Za-z0-9_+.-]+\.swift):\d+", output))
    return sorted(paths[n] for n in names if n in paths)


def runs_programs(graph, test_path):
    target = graph.target_of(test_path)
    return target is not None and any("Program(" in open(os.path.join(graph.root, f), errors="replace").read()
                                      for f in graph.files(target) if f.endswith(".swift"))


def dependencies(graph, mutated_file, tests):
    """Every file a verdict on `tests` depends on (the key's files), or None when a test is gone."""
    root = graph.root
    files = {"Package.swift", "Package.resolved"}
    modules = {graph.target_of(mutated_file)}
    for test in tests:
        if not os.path.isfile(os.path.join(root, test)):
            return None
        files.add(test)
        target = graph.target_of(test)
        if target is None:
            return None
        for helper in graph.files(target):
            if not helper.endswith(".swift"):
                files.add(helper)
                continue
            text = open(os.path.join(root, helper), errors="replace").read()
            if "@Test" not in text:
                files.add(helper)
        modules |= set(IMPORT.findall(open(os.path.join(root, test), errors="replace").read()))
        modules |= set(graph.dependencies.get(target, []))
        if runs_programs(graph, test):
            modules |= set(graph.executables())
    for module in sorted(graph.closure(modules)):
        files |= set(graph.files(module))
    return files


def narrowest(graph, mutated_file, tests):
    """Of the test files that killed a mutant, the one whose verdict depends on the fewest files:
    any one of them failing kills it, so a change the others depend on need not run it again
    (a unit test's file rather than a contract test's, which depends on every program)."""
    sized = [(len(found), test) for test in tests if (found := dependencies(graph, mutated_file, [test])) is not None]
    return [min(sized)[1]] if sized else tests


def key(graph, toolchain, mutant, mutated_file, tests):
    """The verdict's key, or None when the killing tests are not known (then it is not kept)."""
    if not tests:
        return None
    root = graph.root
    files = dependencies(graph, mutated_file, tests)
    if files is None:
        return None
    digest = hashlib.sha256()
    digest.update(toolchain)
    digest.update("\0".join(mutant).encode())
    for path in sorted(files):
        full = os.path.join(root, path)
        if os.path.isfile(full):
            digest.update(path.encode() + b"\0")
            digest.update(file_digest(full))
    return digest.hexdigest()


def machine_digest(*extra):
    """The toolchain's version, the OS's release and the architecture (and `extra`), hashed: what
    every kept verdict depends on besides files (suite_verdicts.py, fuzz_verdicts.py)."""
    return hashlib.sha256("\n".join([
        subprocess.run(["swift", "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, encoding="utf-8").stdout,
        open("/etc/debian_version").read() if os.path.exists("/etc/debian_version") else "",
        os.uname().machine, *extra]).encode())


def cache_base():
    """$HAPTIC_CACHE_DIR, else swift-haptics under $XDG_CACHE_HOME or ~/.cache (Scripts/lib/cache)."""
    return os.environ.get("HAPTIC_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "swift-haptics")


@functools.lru_cache(maxsize=None)
def file_digest(path):
    """A file's SHA-256, read once per run: every verdict's key hashes the same modules."""
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).digest()


def identity(mutant):
    return hashlib.sha256("\0".join(mutant).encode()).hexdigest()[:24]


class VerdictStore:
    """One file per mutant: the key it was killed under and the tests that killed it."""

    def __init__(self, folder):
        self.folder = folder

    def kept(self, graph, toolchain, mutant, mutated_file):
        if not self.folder:
            return False
        path = os.path.join(self.folder, identity(mutant) + ".json")
        if not os.path.isfile(path):
            return False
        try:
            with open(path) as handle:
                stored = json.load(handle)
        except (OSError, ValueError):
            return False
        return stored.get("key") is not None and stored["key"] == key(graph, toolchain, mutant, mutated_file, stored.get("tests"))

    def keep(self, graph, toolchain, mutant, mutated_file, tests):
        if not self.folder:
            return
        found = key(graph, toolchain, mutant, mutated_file, tests)
        if found is None:
            return
        os.makedirs(self.folder, exist_ok=True)
        partial = os.path.join(self.folder, identity(mutant) + ".partial")
        with open(partial, "w") as handle:
            json.dump({"name": mutant[0], "key": found, "tests": tests}, handle)
        os.replace(partial, os.path.join(self.folder, identity(mutant) + ".json"))

    def forget(self, mutant):
        if self.folder:
            try:
                os.remove(os.path.join(self.folder, identity(mutant) + ".json"))
            except FileNotFoundError:
                pass
