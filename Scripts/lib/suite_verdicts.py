#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A suite's passes kept per test target, by what each target depends on (.ci/run).

The sanitizers' suites and the aarch64 suite under qemu-user check the code, not the machine: a
test target that passed under one of them passes again while nothing it depends on changed. What
it depends on (`mutant_verdicts.dependencies`): its own files, the modules its tests import and
their dependencies, the programs when its tests run them, Package.swift and Package.resolved;
besides, for every target, the files the tests read from the tree (Boards/, Packaging/), the
suite's own settings (.ci/lsan-suppressions.txt, Scripts/lib/native-only-tests), the shared folder
beside the clone, the toolchain, the OS and the suite's name.

    suite_verdicts.py pending SUITE   prints the --filter for the targets to run ("" when none)
    suite_verdicts.py keep SUITE      keeps every target's key (after the suite passed)
    suite_verdicts.py keys SUITE      prints every target's key, for $HAPTIC_SUITE_KEYS

With $HAPTIC_SUITE_KEYS naming a file `keys` wrote, `pending` and `keep` use the keys in it: the
tree as it was when they were taken (the aarch64 suite runs while the mutants stage plants bugs in
the sources; its keys are the tree's as the cross build compiled it).

$HAPTIC_SUITE_SKIPPED_TARGETS names test targets the suite never runs (the aarch64 suite skips the
CLI's contract tests: Scripts/lib/native-only-tests --qemu-user-targets): they get no key, so a
change to them alone leaves nothing to run rather than a filter that matches no test (which
swift-testing fails with exit 69).

The passes are in $HAPTIC_CACHE_DIR/suite-verdicts/SUITE.json; HAPTIC_VERDICTS=0 runs every target.
A failing suite keeps nothing, so its targets run again.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutant_verdicts  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED_WITH_EVERY_TARGET = ["Boards", "Packaging", ".ci/lsan-suppressions.txt", "Scripts/lib/native-only-tests", "../shared"]


def cache_folder():
    return os.path.join(mutant_verdicts.cache_base(), "suite-verdicts")


def files_under(path):
    full = os.path.join(ROOT, path)
    if os.path.isfile(full):
        return [path]
    found = []
    for directory, folders, names in os.walk(full):
        folders.sort()
        found += [os.path.relpath(os.path.join(directory, n), ROOT) for n in sorted(names)]
    return found


def keys(suite):
    graph = mutant_verdicts.PackageGraph(ROOT)
    shared = mutant_verdicts.machine_digest(suite)
    for path in [f for p in SHARED_WITH_EVERY_TARGET for f in files_under(p)]:
        shared.update(path.encode() + b"\0" + mutant_verdicts.file_digest(os.path.join(ROOT, path)))
    skipped = set(os.environ.get("HAPTIC_SUITE_SKIPPED_TARGETS", "").split())
    found = {}
    for target, kind in sorted(graph.kinds.items()):
        if kind != "test" or target in skipped:
            continue
        tests = [f for f in graph.files(target) if f.endswith(".swift")]
        files = mutant_verdicts.dependencies(graph, tests[0], tests) if tests else None
        if files is None:
            continue
        digest = shared.copy()
        for path in sorted(files):
            full = os.path.join(ROOT, path)
            if os.path.isfile(full):
                digest.update(path.encode() + b"\0" + mutant_verdicts.file_digest(full))
        found[target] = digest.hexdigest()[:24]
    return found


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("pending", "keep", "keys"):
        sys.exit(__doc__)
    verb, suite = sys.argv[1], sys.argv[2]
    store = os.path.join(cache_folder(), suite + ".json")
    taken = os.environ.get("HAPTIC_SUITE_KEYS")
    current = json.load(open(taken)) if taken and verb != "keys" else keys(suite)
    if verb == "keys":
        print(json.dumps(current, indent=1, sort_keys=True))
        return
    if verb == "keep":
        os.makedirs(cache_folder(), exist_ok=True)
        with open(store + ".new", "w") as handle:
            json.dump(current, handle, indent=1, sort_keys=True)
        os.replace(store + ".new", store)
        return
    kept = {}
    if os.environ.get("HAPTIC_VERDICTS", "1") != "0" and os.path.exists(store):
        try:
            kept = json.load(open(store))
        except (OSError, ValueError):
            kept = {}
    pending = [t for t in sorted(current) if kept.get(t) != current[t]]
    passed = sorted(set(current) - set(pending))
    print(f"suite verdicts: {suite}: {len(passed)} test targets kept (nothing they depend on changed since they passed): "
          f"{', '.join(passed) or 'none'}; {len(pending)} to run: {', '.join(pending) or 'none'}", file=sys.stderr)
    print("^(" + "|".join(pending) + ")\\." if pending else "")


if __name__ == "__main__":
    main()
