#!/usr/bin/env python3
"""Read the NumPy frames of a gpusim run (gpusim run --npz N: OUT/npz/step-NNNNNNNN.npz).

    python3 examples/read_npz.py OUT                        # a line per frame
    python3 examples/read_npz.py OUT --final-csv OUT/final.csv

Each frame holds the arrays t, step, id, pos, quat (w, x, y, z), vel, omega
(world frame), contact_bodies, contact_point, contact_point_b, contact_normal,
contact_gap, contact_force (N, world frame, on the contact's second body) and
contact_force_nuw (the same in the contact frame: normal, u, w); see
run/npz.go. With --final-csv the script rebuilds final.csv's text from the
last frame (the state at the end of the run), compares it with the file line
by line and exits 0 only if every line is the same.

Plain Python 3 and numpy (Debian: apt-get install python3-numpy).
"""

import argparse
import glob
import math
import os
import sys

import numpy as np

# final.csv's header (run/writers.go's bodyHeader).
HEADER = "id,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz"


def go_float(v):
    """Format v as Go's strconv.FormatFloat(v, 'g', -1, 64) does.

    Both Python's repr and Go's 'g' with precision -1 write the shortest
    digits that read back to v; they differ in when they switch to an
    exponent and in how they write numbers (Go: "1e+06", "1234567.5" as
    "1.2345675e+06", "2" for 2.0, "-0"; Python: "1000000.0", "1234567.5",
    "2.0", "-0.0"). So take the digits from repr and lay them out as Go
    does.
    """
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    r = repr(v)
    neg = r.startswith("-")
    if neg:
        r = r[1:]
    mant, _, exp = r.partition("e")
    whole, _, frac = mant.partition(".")
    digits = whole + frac
    dp = len(whole) + (int(exp) if exp else 0)  # the point after digits[:dp]
    stripped = digits.lstrip("0")
    dp -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    sign = "-" if neg else ""
    if not digits:
        return sign + "0"
    nd = len(digits)
    x = dp - 1  # the decimal exponent
    # strconv's shortest 'g': %e when the exponent is < -4 or ≥ 6, with
    # at least two exponent digits; else %f with just the digits needed.
    eprec = 6
    if x < -4 or x >= eprec:
        m = digits[0] + ("." + digits[1:] if nd > 1 else "")
        return "%s%se%s%02d" % (sign, m, "-" if x < 0 else "+", abs(x))
    if dp <= 0:
        return sign + "0." + "0" * (-dp) + digits
    if dp >= nd:
        return sign + digits + "0" * (dp - nd)
    return sign + digits[:dp] + "." + digits[dp:]


def frames(out):
    """The frame files of the run folder out, in step order."""
    return sorted(glob.glob(os.path.join(out, "npz", "step-*.npz")))


def final_csv_text(f):
    """final.csv's text for the state of the frame f (an np.load result)."""
    cols = [f["pos"], f["quat"], f["vel"], f["omega"]]
    lines = [HEADER]
    for i, body in enumerate(f["id"]):
        vals = [go_float(v) for c in cols for v in c[i]]
        lines.append(",".join([str(int(body))] + vals))
    return "\n".join(lines) + "\n"


def summary(path):
    with np.load(path) as f:
        n, nc = len(f["id"]), len(f["contact_bodies"])
        speed = np.linalg.norm(f["vel"], axis=1).max() if n else 0.0
        fn = f["contact_force_nuw"][:, 0].sum() if nc else 0.0
        return "step %8d  t %-10s  bodies %6d  contacts %6d  max speed %.4g m/s  mean z %.6g m  sum of normal forces %.6g N" % (
            int(f["step"]), go_float(f["t"]), n, nc, speed, f["pos"][:, 2].mean() if n else 0.0, fn)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="a run's output folder (gpusim run --npz N --out OUT)")
    ap.add_argument("--final-csv", help="compare the last frame with this final.csv, exit 1 on a difference")
    ap.add_argument("--quiet", action="store_true", help="no line per frame")
    args = ap.parse_args()
    paths = frames(args.out)
    if not paths:
        sys.exit("read_npz: no frames in %s (run gpusim run --npz N)" % os.path.join(args.out, "npz"))
    if not args.quiet:
        for p in paths:
            print("%s: %s" % (os.path.basename(p), summary(p)))
    if not args.final_csv:
        return 0
    with np.load(paths[-1]) as f:
        got = final_csv_text(f).splitlines()
        step = int(f["step"])
    with open(args.final_csv) as fh:
        want = fh.read().splitlines()
    bad = [k for k in range(max(len(got), len(want)))
           if k >= len(got) or k >= len(want) or got[k] != want[k]]
    if bad:
        for k in bad[:5]:
            print("line %d: final.csv %r, frame %r" % (k + 1, want[k] if k < len(want) else None,
                                                        got[k] if k < len(got) else None), file=sys.stderr)
        print("read_npz: %s differs from the frame of step %d in %d of %d lines" % (
            args.final_csv, step, len(bad), max(len(got), len(want))), file=sys.stderr)
        return 1
    print("read_npz: %s rebuilt from %s: all %d lines identical" % (args.final_csv, os.path.basename(paths[-1]), len(want)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
