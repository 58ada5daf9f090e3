#!/usr/bin/env python3
"""Checks the job definitions in deploy/ and the Dockerfile as files (no cluster, no Docker):

* YAML parses (python3-yaml) and the fields that make the sharding work agree: an Indexed Job whose
  completions, parallelism and ALLOCLAB_SHARD_COUNT are one number and whose index comes from the
  completion-index annotation; a CI matrix of shards 1..N with ALLOCLAB_SHARD_COUNT = N and a merge
  job after it; a Slurm array whose tasks read their index from Slurm; the merge reads where the
  shards write.
* Every alloclab command they run (and every one in docs/fleet.md's code blocks) names a real
  command and only options that command's --help lists, with a valid --shard value.
* The shell scripts pass `bash -n` and shellcheck (Debian packages), the workflow's run blocks too.
* The Dockerfile starts from Debian 12, installs through scripts/deps.sh and builds the release preset.

Usage: check_deploy.py ALLOCLAB_BINARY REPOSITORY_ROOT. Prints one line per check, then
"N passed, M failed"; exit 1 when any failed."""
import pathlib
import re
import shlex
import subprocess
import sys

import yaml

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAILED'}: {name}{'' if ok else ': ' + detail}")


def help_options(binary, command):
    """The options `alloclab COMMAND --help` lists, and whether the command exists."""
    out = subprocess.run([binary, command, "--help"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    options = set()
    for line in out.stdout.splitlines():
        if line.lstrip().startswith("-"):
            options.update(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", line.split("  ")[1]
                                      if line.startswith("  ") else line))
    return options


def alloclab_commands(text):
    """The alloclab invocations in a block of shell text, as token lists after `alloclab`."""
    found = []
    for line in text.replace("\\\n", " ").splitlines():
        line = re.sub(r"\$\{\{[^}]*\}\}", "X", line)  # GitHub expressions
        try:
            tokens = shlex.split(line, comments=True)
        except ValueError:
            continue
        for i, token in enumerate(tokens):
            name = token.rsplit("/", 1)[-1]
            if name in ("alloclab", "$alloclab"):
                found.append(tokens[i + 1:])
            elif name == "run-lab.sh":  # passes its arguments to `alloclab run`
                found.append(["run"] + tokens[i + 1:])
    return found


def check_invocation(binary, where, tokens, helps):
    if not tokens:
        return
    command = tokens[0]
    if command not in helps:
        helps[command] = help_options(binary, command)
    options = helps[command]
    if options is None:
        check(f"{where}: alloclab {command}", False, "no such command")
        return
    bad = [t for t in tokens[1:] if t.startswith("-") and t.split("=")[0] not in options]
    check(f"{where}: alloclab {' '.join(tokens)}", not bad, f"unknown options {bad}")
    if "--shard" in tokens:
        value = tokens[tokens.index("--shard") + 1]
        check(f"{where}: --shard {value}", value == "auto" or re.fullmatch(r"\d+/\d+", value),
              "not auto or K/N")


def check_kubernetes(root, binary, helps):
    shards = list(yaml.safe_load_all((root / "deploy/kubernetes/alloclab-shards.yaml").read_text()))
    merge = list(yaml.safe_load_all((root / "deploy/kubernetes/alloclab-merge.yaml").read_text()))
    check("kubernetes: YAML parses", len(shards) == 2 and len(merge) == 1)
    claims = {d["metadata"]["name"] for d in shards if d["kind"] == "PersistentVolumeClaim"}
    job = next(d for d in shards if d["kind"] == "Job")
    spec, pod = job["spec"], job["spec"]["template"]["spec"]
    container = pod["containers"][0]
    env = {e["name"]: e for e in container["env"]}
    count = int(env["ALLOCLAB_SHARD_COUNT"]["value"])
    check("kubernetes: Indexed Job", spec["completionMode"] == "Indexed")
    check("kubernetes: completions = parallelism = ALLOCLAB_SHARD_COUNT",
          spec["completions"] == spec["parallelism"] == count, f"{spec} vs {count}")
    check("kubernetes: the index is the completion index",
          env["JOB_COMPLETION_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"]
          == "metadata.annotations['batch.kubernetes.io/job-completion-index']")
    check("kubernetes: pods are not restarted", pod["restartPolicy"] == "Never")
    args = container["args"]
    mount = container["volumeMounts"][0]["mountPath"]
    out = args[args.index("--out") + 1]
    check("kubernetes: shards write to the volume", out.startswith(mount + "/"), out)
    check("kubernetes: the volume is the claim defined",
          pod["volumes"][0]["persistentVolumeClaim"]["claimName"] in claims)
    check_invocation(binary, "kubernetes shards", args, helps)
    merge_pod = merge[0]["spec"]["template"]["spec"]
    merge_args = " ".join(merge_pod["containers"][0]["args"])
    check("kubernetes: merge reads the shards' directories",
          f"{mount}/shard-*" in merge_args and
          merge_pod["volumes"][0]["persistentVolumeClaim"]["claimName"] in claims, merge_args)
    for tokens in alloclab_commands(merge_args):
        check_invocation(binary, "kubernetes merge", tokens, helps)


def shellcheck(name, path, root):
    syntax = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    check(f"{name}: bash -n", syntax.returncode == 0, syntax.stderr)
    lint = subprocess.run(["shellcheck", "-s", "bash", "-x", "-P", str(root), str(path)],
                          capture_output=True, text=True)
    check(f"{name}: shellcheck", lint.returncode == 0, lint.stdout + lint.stderr)


def check_github(root, binary, helps, scratch):
    flow = yaml.safe_load((root / "deploy/github-actions/alloclab-shards.yml").read_text())
    check("github actions: YAML parses", isinstance(flow, dict) and "jobs" in flow)
    shard, merge = flow["jobs"]["shard"], flow["jobs"]["merge"]
    count = int(shard["env"]["ALLOCLAB_SHARD_COUNT"])
    check("github actions: matrix is shards 1..ALLOCLAB_SHARD_COUNT",
          shard["strategy"]["matrix"]["shard"] == list(range(1, count + 1)))
    check("github actions: ALLOCLAB_SHARD_INDEX is the matrix's",
          shard["env"]["ALLOCLAB_SHARD_INDEX"] == "${{ matrix.shard }}")
    check("github actions: merge runs after the shards", merge["needs"] == "shard")
    for job_name, job in (("shard", shard), ("merge", merge)):
        for i, step in enumerate(s for s in job["steps"] if "run" in s):
            for tokens in alloclab_commands(step["run"]):
                check_invocation(binary, f"github actions {job_name}", tokens, helps)
            script = scratch / f"{job_name}_{i}.sh"
            body = re.sub(r"\$\{\{[^}]*\}\}", "1", step["run"])
            script.write_text("#!/bin/bash\nset -euo pipefail\n" + body)
            shellcheck(f"github actions {job_name} step {i}", script, root)


def check_slurm(root, binary, helps):
    shards = root / "deploy/slurm/alloclab-shards.sbatch"
    text = shards.read_text()
    array = re.search(r"^#SBATCH --array=(\d+)-(\d+)$", text, re.M)
    check("slurm: an array job", array is not None)
    check("slurm: shards read their index from Slurm", "--shard auto" in text)
    for path in (shards, root / "deploy/slurm/alloclab-merge.sbatch"):
        shellcheck(f"slurm {path.name}", path, root)
        for tokens in alloclab_commands(path.read_text()):
            check_invocation(binary, f"slurm {path.name}", tokens, helps)


def check_dockerfile(root):
    lines = [l for l in (root / "Dockerfile").read_text().replace("\\\n", " ").splitlines()
             if l.strip() and not l.lstrip().startswith("#")]
    known = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME",
             "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}
    words = [l.split()[0] for l in lines]
    check("Dockerfile: every instruction is one", all(w in known for w in words), str(words))
    check("Dockerfile: from Debian 12", lines[0].split()[1] in ("debian:12", "debian:bookworm"))
    text = " ".join(lines)
    check("Dockerfile: Debian packages through scripts/deps.sh",
          "source scripts/deps.sh" in text and "alloclab_ensure_packages" in text)
    check("Dockerfile: builds the release preset", "cmake --preset release" in text)


def main(binary, root):
    root = pathlib.Path(root)
    scratch = pathlib.Path(subprocess.run(["mktemp", "-d"], capture_output=True,
                                          text=True).stdout.strip())
    helps = {}
    check_kubernetes(root, binary, helps)
    check_github(root, binary, helps, scratch)
    check_slurm(root, binary, helps)
    check_dockerfile(root)
    for block in re.findall(r"```(?:sh|bash|console)?\n(.*?)```",
                            (root / "docs/fleet.md").read_text(), re.S):
        for tokens in alloclab_commands(block):
            check_invocation(binary, "docs/fleet.md", tokens, helps)
    subprocess.run(["rm", "-rf", str(scratch)])
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
