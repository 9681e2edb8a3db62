#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fuzzing's passes kept per libFuzzer target, by what each target depends on (Scripts/fuzz).

A fuzz target that found nothing finds nothing again on the same inputs: its pass is kept while
none of them changed. What a target depends on: its own sources and the fuzz package's shared
driver (Fuzz/Sources/FuzzSupport), both manifests and their Package.resolved, every file of the
main package's modules it links (the products it names and their dependencies, as SwiftPM
resolves them), the seeds (Fuzz/Seeds, Examples/patterns, Boards, the AHAP corpus in ../shared),
the fuzz script and this file, the run's length in seconds, the toolchain, the OS and the
architecture. A change to HapticsService reruns FuzzServiceRequest, not the serial frame parser.

    fuzz_verdicts.py keys SECONDS              prints every target's key (JSON), for $HAPTIC_FUZZ_KEYS
    fuzz_verdicts.py pending SECONDS TARGET... prints the targets to run, one a line; says on
                                               stderr which were kept and with how many executions
    fuzz_verdicts.py kept SECONDS TARGET...    prints the executions kept for the kept targets (a sum)
    fuzz_verdicts.py keep SECONDS TARGET=N...  keeps these targets' passes with their executions

With $HAPTIC_FUZZ_KEYS naming a file `keys` wrote, the keys in it are used: the tree as it was
before the mutants stage planted bugs in the sources. The passes are in
$HAPTIC_CACHE_DIR/fuzz-verdicts.json; HAPTIC_VERDICTS=0 runs every target. A failing run keeps
nothing, so its targets run again.
"""
import datetime
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutant_verdicts  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FUZZ = os.path.join(ROOT, "Fuzz")
# Read by every target: the seeds Scripts/fuzz copies, the scripts that build and run them.
SHARED_WITH_EVERY_TARGET = [
    "Fuzz/Package.swift", "Fuzz/Package.resolved", "Fuzz/Sources/FuzzSupport", "Fuzz/Seeds", "Examples/patterns",
    "Boards", "Package.swift", "Package.resolved", "Scripts/fuzz", "Scripts/lib/path-dependent-build",
    "Scripts/lib/fuzz_verdicts.py", "../shared/ahap-corpus"]


def store_path():
    return os.path.join(mutant_verdicts.cache_base(), "fuzz-verdicts.json")


def files_under(path):
    full = os.path.normpath(os.path.join(ROOT, path))
    if os.path.isfile(full):
        return [full]
    found = []
    for directory, folders, names in os.walk(full):
        folders.sort()
        found += [os.path.join(directory, n) for n in sorted(names)]
    return found


def fuzz_targets():
    """The fuzz package's targets and the main package's products each names."""
    dump = subprocess.run(["swift", "package", "dump-package"], cwd=FUZZ, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=True, encoding="utf-8")
    found = {}
    for target in json.loads(dump.stdout)["targets"]:
        products = [d["product"][0] for d in target.get("dependencies", []) if "product" in d]
        found[target["name"]] = (target.get("path") or os.path.join("Sources", target["name"]), products)
    return found


def keys(seconds):
    graph = mutant_verdicts.PackageGraph(ROOT)
    shared = mutant_verdicts.machine_digest(str(seconds))
    for path in [f for p in SHARED_WITH_EVERY_TARGET for f in files_under(p)]:
        shared.update(os.path.relpath(path, ROOT).encode() + b"\0" + mutant_verdicts.file_digest(path))
    found = {}
    for name, (folder, products) in sorted(fuzz_targets().items()):
        if not products:
            continue  # FuzzSupport: the driver, part of every target's key
        # A product of the main package is its target of the same name (Package.swift's products).
        modules = graph.closure(products)
        if len(modules) == 0 or not set(products) <= set(graph.folders):
            sys.exit(f"fuzz verdicts: {name} names products the main package has no target for: {products}")
        digest = shared.copy()
        files = files_under(os.path.join("Fuzz", folder)) + [
            os.path.join(ROOT, f) for module in sorted(modules) for f in graph.files(module)]
        for path in files:
            digest.update(os.path.relpath(path, ROOT).encode() + b"\0" + mutant_verdicts.file_digest(path))
        found[name] = digest.hexdigest()[:24]
    return found


def load_store():
    if os.environ.get("HAPTIC_VERDICTS", "1") == "0":
        return {}
    try:
        with open(store_path()) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("keys", "pending", "kept", "keep"):
        sys.exit(__doc__)
    verb, seconds, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    taken = os.environ.get("HAPTIC_FUZZ_KEYS")
    current = json.load(open(taken)) if taken and verb != "keys" else keys(seconds)
    if verb == "keys":
        print(json.dumps(current, indent=1, sort_keys=True))
        return
    unknown = [n.split("=")[0] for n in names if n.split("=")[0] not in current]
    if unknown:
        sys.exit(f"fuzz verdicts: no such fuzz target: {', '.join(unknown)}")
    store = load_store()

    def kept(name):
        entry = store.get(name)
        return isinstance(entry, dict) and entry.get("key") == current[name] and isinstance(entry.get("executions"), int)

    if verb == "pending":
        for name in names:
            if kept(name):
                entry = store[name]
                print(f"fuzz: {name}: kept, nothing it depends on changed since it passed on {entry['passed']} "
                      f"({entry['executions']} executions then, key {current[name]})", file=sys.stderr)
            else:
                print(name)
    elif verb == "kept":
        print(sum(store[n]["executions"] for n in names if kept(n)))
    else:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        for pair in names:
            name, executions = pair.split("=")
            store[name] = {"key": current[name], "executions": int(executions), "passed": stamp}
        os.makedirs(os.path.dirname(store_path()), exist_ok=True)
        with open(store_path() + ".new", "w") as handle:
            json.dump(store, handle, indent=1, sort_keys=True)
        os.replace(store_path() + ".new", store_path())


if __name__ == "__main__":
    main()
