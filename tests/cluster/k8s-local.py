#!/usr/bin/python3
"""Runs docs/k8s/sweep-job.yaml's Indexed Job in the image docs/docker/Dockerfile
describes, without Docker or Kubernetes, and checks what docs/sweeps.md
promises.

Neither a Docker engine nor a cluster runs on this project's machines, so this
script does their part by hand, as literally as it can:

  image  The Dockerfile's build stage command builds gpusim here (this machine
         is Debian 12, as golang:1.26-bookworm). The runtime stage's base,
         debian:12-slim, is a debootstrap of bookworm (minbase); its RUN lines
         run in a chroot of it, COPY --from=build copies the binary, ENV,
         WORKDIR and ENTRYPOINT are kept for the pods.
  Job    The manifest's Job: completions, parallelism, the container's args,
         env and volumeMounts. Each pod is the entrypoint with the args, run
         in the chroot with the image's and the container's env plus
         JOB_COMPLETION_INDEX (as the Job controller sets it), at most
         parallelism at once. The PersistentVolumeClaim is a folder bind-
         mounted at its mountPath; the ConfigMap is a folder holding spec.json
         made from the file the manifest's kubectl create configmap line
         names.

Checks: completions equals the number of runs of that spec; every pod exits 0
and writes its own run; applying the Job again, every pod exits 0 at once
(its run complete); the collect pod of the manifest's comment makes
collect.csv (every run done) and the plot. Needs root (chroot, mounts) and
Debian's debootstrap; about a minute. Usage:

    sudo tests/cluster/k8s-local.py

GPUSIM_ROOTFS_CACHE=FILE keeps the debootstrap as a tarball between runs.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCKERFILE = os.path.join(REPO, "docs", "docker", "Dockerfile")
JOB = os.path.join(REPO, "docs", "k8s", "sweep-job.yaml")


def fail(msg):
    print("k8s-local: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def log(msg):
    print("k8s-local: " + msg, flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def parse_dockerfile(path):
    """Returns the stages: a list of (base, [(instruction, argument)])."""
    lines, cur = [], ""
    for raw in open(path):
        line = raw.rstrip("\n")
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        lines.append(cur + line)
        cur = ""
    stages = []
    for line in lines:
        instr, _, arg = line.strip().partition(" ")
        instr = instr.upper()
        if instr == "FROM":
            stages.append((arg.split()[0], []))
        elif stages:
            stages[-1][1].append((instr, arg.strip()))
    return stages


def exec_form(arg):
    """The exec form ["a", "b"] of ENTRYPOINT and CMD."""
    v = yaml.safe_load(arg)
    if not isinstance(v, list):
        fail("ENTRYPOINT %r is not in exec form" % arg)
    return v


def parse_env(arg):
    """ENV k=v k2=v2 (the form the Dockerfile uses)."""
    env = {}
    for tok in shlex.split(arg):
        k, eq, v = tok.partition("=")
        if not eq:
            fail("ENV %r: want k=v pairs" % arg)
        env[k] = v
    return env


class Image:
    def __init__(self, root):
        self.root = root
        self.env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
        self.workdir = "/"
        self.entrypoint = []
        self.mounts = []

    def mount(self, src, target, *opts):
        dst = self.root + target
        os.makedirs(dst, exist_ok=True)
        sh(["mount", *opts, src, dst])
        self.mounts.append(dst)

    def unmount_all(self):
        for dst in reversed(self.mounts):
            subprocess.run(["umount", "-l", dst])
        self.mounts = []

    def run(self, argv, env=None, **kw):
        """Runs argv in the image (chroot), with the image's env and env."""
        e = dict(self.env)
        e.update(env or {})
        cmd = ["chroot", self.root, "env", "-i"] + ["%s=%s" % kv for kv in e.items()]
        cmd += ["sh", "-c", 'cd "$0" && exec "$@"', self.workdir] + list(argv)
        return subprocess.Popen(cmd, **kw)


def build_image(work):
    stages = parse_dockerfile(DOCKERFILE)
    if len(stages) != 2:
        fail("%s: want a build stage and a runtime stage, got %d stages" % (DOCKERFILE, len(stages)))
    (build_base, build), (run_base, runtime) = stages
    if "bookworm" not in build_base or run_base != "debian:12-slim":
        fail("stages %s and %s: this check builds on Debian 12 (bookworm) and runs in debian:12-slim" % (build_base, run_base))

    # Build stage: its go build command, /out mapped to a folder here.
    out = os.path.join(work, "out")
    os.makedirs(out)
    cmds = [a for i, a in build if i == "RUN" and "go build" in a]
    if len(cmds) != 1:
        fail("the build stage has %d go build commands, want 1" % len(cmds))
    cmd = cmds[0].replace("/out/", out + "/")
    log("build stage: " + cmds[0])
    sh(["sh", "-c", cmd], cwd=REPO)

    # Runtime stage: debian:12-slim as a bookworm debootstrap.
    root = os.path.join(work, "rootfs")
    cache = os.environ.get("GPUSIM_ROOTFS_CACHE")
    if cache and os.path.exists(cache):
        os.makedirs(root)
        sh(["tar", "-xf", cache, "-C", root])
    else:
        log("debootstrap bookworm (debian:12-slim's base)")
        sh(["debootstrap", "--variant=minbase", "bookworm", root, "http://deb.debian.org/debian"],
           stdout=subprocess.DEVNULL)
        if cache:
            sh(["tar", "-cf", cache, "-C", root, "."])
    img = Image(root)
    img.mount("proc", "/proc", "-t", "proc")
    img.mount("/dev", "/dev", "--rbind")
    shutil.copy("/etc/resolv.conf", root + "/etc/resolv.conf")
    for instr, arg in runtime:
        if instr == "RUN":
            log("RUN " + arg)
            p = img.run(["sh", "-c", arg], env={"DEBIAN_FRONTEND": "noninteractive"},
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            _, err = p.communicate()
            if p.returncode != 0:
                fail("RUN %s: exit %d: %s" % (arg, p.returncode, err))
        elif instr == "COPY":
            m = re.fullmatch(r"--from=build (/out/\S+) (\S+)", arg)
            if not m:
                fail("COPY %r: only COPY --from=build /out/... is known here" % arg)
            dst = root + m.group(2)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.join(out, m.group(1)[len("/out/"):]), dst)
        elif instr == "ENV":
            img.env.update(parse_env(arg))
        elif instr == "WORKDIR":
            img.workdir = arg
            os.makedirs(root + arg, exist_ok=True)
        elif instr == "ENTRYPOINT":
            img.entrypoint = exec_form(arg)
        elif instr == "CMD":
            pass
        else:
            fail("runtime stage: %s is not handled here" % instr)
    if not img.entrypoint:
        fail("no ENTRYPOINT")
    # The NVIDIA Vulkan ICD that the container toolkit mounts from the host
    # (libGLX_nvidia.so.0) needs these from the image; without them the
    # loader skips it and a GPU node runs on the CPU.
    p = img.run(["ldconfig", "-p"], stdout=subprocess.PIPE, text=True)
    libs, _ = p.communicate()
    for lib in ("libvulkan.so.1", "libXext.so.6", "libEGL.so.1"):
        if lib not in libs:
            fail("the image lacks %s" % lib)
    return img


def main():
    if os.geteuid() != 0:
        fail("needs root (chroot and mounts)")
    if not shutil.which("debootstrap"):
        fail("needs debootstrap (apt-get install debootstrap)")
    docs = list(yaml.safe_load_all(open(JOB)))
    jobs = [d for d in docs if d and d.get("kind") == "Job"]
    claims = {d["metadata"]["name"] for d in docs if d and d.get("kind") == "PersistentVolumeClaim"}
    if len(jobs) != 1:
        fail("%s: want one Job, got %d" % (JOB, len(jobs)))
    job = jobs[0]["spec"]
    if job.get("completionMode") != "Indexed":
        fail("completionMode is %r, want Indexed" % job.get("completionMode"))
    # A replacement pod must not start while the pod it replaces still
    # writes the same run folder.
    if job.get("podReplacementPolicy") != "Failed":
        fail("podReplacementPolicy is %r, want Failed" % job.get("podReplacementPolicy"))
    completions, parallelism = int(job["completions"]), int(job.get("parallelism", 1))
    pod = job["template"]["spec"]
    (ctr,) = pod["containers"]
    volumes = {v["name"]: v for v in pod["volumes"]}

    # The spec the ConfigMap holds: the manifest's kubectl create configmap line.
    m = re.search(r"kubectl create configmap (\S+) --from-file=(\S+?)=(\S+)", open(JOB).read())
    if not m:
        fail("the manifest's comment has no kubectl create configmap line")
    cm_name, cm_key, cm_file = m.groups()

    work = tempfile.mkdtemp(prefix="gpusim-k8s.")
    log("work folder " + work)
    img = None
    try:
        img = build_image(work)
        pv = os.path.join(work, "pv")
        cm = os.path.join(work, "configmap")
        os.makedirs(pv)
        os.makedirs(cm)
        shutil.copy(os.path.join(REPO, cm_file), os.path.join(cm, cm_key))
        for vm in ctr["volumeMounts"]:
            v = volumes[vm["name"]]
            if "persistentVolumeClaim" in v:
                if v["persistentVolumeClaim"]["claimName"] not in claims:
                    fail("volume %s: claim %s is not in the manifest" % (vm["name"], v["persistentVolumeClaim"]["claimName"]))
                img.mount(pv, vm["mountPath"], "--bind")
                pv_mount = vm["mountPath"]
            elif "configMap" in v:
                if v["configMap"]["name"] != cm_name:
                    fail("volume %s: ConfigMap %s, but the comment makes %s" % (vm["name"], v["configMap"]["name"], cm_name))
                img.mount(cm, vm["mountPath"], "--bind", "-o", "ro")
            else:
                fail("volume %s: only PVCs and ConfigMaps are known here" % vm["name"])
        env = {e["name"]: e["value"] for e in ctr.get("env", [])}
        args = ctr["args"]
        log("image: %s; pods run %s with %s" % (img.entrypoint, args, env))

        # completions must be the number of runs of the spec.
        p = img.run(img.entrypoint + args[:1] + [args[1], "--list"] + args[args.index("--out"):args.index("--out") + 2],
                    stdout=subprocess.PIPE, text=True)
        listing, _ = p.communicate()
        runs = len(listing.splitlines())
        if p.returncode != 0 or runs != completions:
            fail("the spec has %d runs (exit %d), the Job %d completions" % (runs, p.returncode, completions))

        def apply_job(label):
            """Runs every index, parallelism at a time; returns their logs."""
            logs, running, todo = {}, {}, list(range(completions))
            t0 = time.time()
            while todo or running:
                while todo and len(running) < parallelism:
                    i = todo.pop(0)
                    e = dict(env, JOB_COMPLETION_INDEX=str(i))
                    running[i] = img.run(img.entrypoint + args, env=e, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True)
                for i, pr in list(running.items()):
                    if pr.poll() is None:
                        continue
                    logs[i] = pr.stdout.read()
                    del running[i]
                    if pr.returncode != 0:
                        fail("%s: pod %d exited %d:\n%s" % (label, i, pr.returncode, logs[i]))
                time.sleep(0.05)
            log("%s: %d pods succeeded in %.1f s" % (label, completions, time.time() - t0))
            return logs

        logs = apply_job("Job")
        sweep = os.path.join(pv, os.path.relpath(args[args.index("--out") + 1], pv_mount))
        for i in range(completions):
            if "run done" not in logs[i] or not os.path.getsize(os.path.join(sweep, "runs", "%04d" % i, "DONE")):
                fail("pod %d did not complete run %d:\n%s" % (i, i, logs[i]))
        logs = apply_job("Job applied again")
        for i in range(completions):
            if not re.search(r'skipped_complete"?[=:]1\b', logs[i]) or "run started" in logs[i]:
                fail("applied again, pod %d did not just skip its complete run:\n%s" % (i, logs[i]))

        # The collect pod of the manifest's comment.
        comment = "".join(l.lstrip("#").strip() for l in open(JOB) if l.startswith("#"))
        m = re.search(r'"args":\[("collect".*?)\]', comment)
        if not m:
            fail("the manifest's comment has no collect pod")
        cargs = yaml.safe_load("[" + m.group(1) + "]")
        p = img.run(img.entrypoint + cargs, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out, _ = p.communicate()
        if p.returncode != 0:
            fail("collect: exit %d:\n%s" % (p.returncode, out))
        csv = open(os.path.join(sweep, "collect.csv")).read().splitlines()
        done = sum(1 for row in csv[1:] if ",done," in row)
        x, y = cargs[cargs.index("--x") + 1], cargs[cargs.index("--y") + 1]
        png = os.path.join(sweep, "collect-%s-vs-%s.png" % (y, x))
        if len(csv) - 1 != completions or done != completions or not os.path.getsize(png):
            fail("collect.csv has %d rows, %d done (want %d), plot %s:\n%s" % (len(csv) - 1, done, completions, png, out))
        log("collect: %d rows, all done; %s" % (done, os.path.basename(png)))
        print("\n".join(csv))
        log("PASS")
    finally:
        if img:
            img.unmount_all()
        if os.environ.get("KEEP") != "1":
            # Only after every mount is gone: rm must not reach the bind
            # mounts' sources.
            if any(os.path.ismount(os.path.join(dp, d)) for dp, ds, _ in os.walk(work) for d in ds):
                print("k8s-local: mounts remain under %s; not removing it" % work, file=sys.stderr)
            else:
                shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
