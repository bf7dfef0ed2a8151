#!/usr/bin/env python3
"""Helpers of examples/crater/fit.sh (Python standard library only).

  crater.py ke FINAL.csv N R RHO           kinetic energy (J) of bodies 0..N-1 (spheres r=R, density RHO)
  crater.py surface FINAL.csv N R BOX      surface of the bed: "mean std ncells" (rule below)
  crater.py addball SETTLED.json FINAL.csv N R SURF RB RHOB H DT T OUT.json
                                           impact scene: the settled bed plus the ball (prints its id and start gap)
  crater.py depth TRACE.csv ID RB SURF     "zmin_bottom d t_min v_end" from the ball's trace
  crater.py fit RESULTS.csv MU RHOG        table of runs and the least-squares constant k per ball size

Surface rule: the box interior less a margin of 2 grain diameters along each
wall is tiled by square columns of side 2 grain diameters; the surface is the
mean over the columns of the highest grain top (z + r) in each column.
"""
import csv
import json
import math
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def ke(final, n, r, rho):
    m = rho * 4.0 / 3.0 * math.pi * r ** 3
    i = 0.4 * m * r * r
    e = 0.0
    for row in rows(final):
        if int(row["id"]) >= n:
            continue
        v2 = sum(float(row[k]) ** 2 for k in ("vx", "vy", "vz"))
        w2 = sum(float(row[k]) ** 2 for k in ("wx", "wy", "wz"))
        e += 0.5 * m * v2 + 0.5 * i * w2
    return e


def surface(final, n, r, box):
    cell = 4 * r
    lo = -box / 2 + cell
    nc = int(math.floor((box - 2 * cell) / cell + 1e-9))
    top = {}
    for row in rows(final):
        if int(row["id"]) >= n:
            continue
        x, y, z = float(row["x"]), float(row["y"]), float(row["z"])
        i, j = int(math.floor((x - lo) / cell)), int(math.floor((y - lo) / cell))
        if 0 <= i < nc and 0 <= j < nc:
            top[(i, j)] = max(top.get((i, j), -1e9), z + r)
    v = list(top.values())
    mean = sum(v) / len(v)
    std = math.sqrt(sum((t - mean) ** 2 for t in v) / len(v))
    return mean, std, len(v)


def addball(settled, final, n, r, surf, rb, rhob, h, dt, t, out):
    sc = json.load(open(settled))
    # highest grain top under the ball's footprint: the ball starts 1 mm above it
    hi = -1e9
    for row in rows(final):
        if int(row["id"]) >= n:
            continue
        x, y, z = float(row["x"]), float(row["y"]), float(row["z"])
        if math.hypot(x, y) < rb + r:
            hi = max(hi, z + r)
    bottom = max(hi, surf) + 0.001
    gap = bottom - surf
    if gap >= h:
        sys.exit("drop height %g is below the start gap %g" % (h, gap))
    # speed of a ball dropped from h above the surface when its bottom is at surf+gap
    v = math.sqrt(2 * 9.81 * (h - gap))
    mats = {m["name"] for m in sc.get("materials", [])}
    if "ball" not in mats:
        sc.setdefault("materials", []).append({"name": "ball", "friction": 0.3})
    ball = {
        "shape": {"type": "sphere", "radius": rb},
        "pos": [0, 0, bottom + rb],
        "vel": [0, 0, -v],
        "density": rhob,
        "material": "ball",
    }
    sc["bodies"].append(ball)
    bid = len(sc["bodies"]) - 1
    sc["name"] = "crater-impact"
    sc["settings"]["dt"] = dt
    sc["run"] = {"duration": t, "trace": [bid]}
    json.dump(sc, open(out, "w"), indent=1)
    return bid, gap, v


def depth(trace, bid, rb, surf):
    best = None
    last = None
    for row in rows(trace):
        if int(row["id"]) != bid:
            continue
        zb = float(row["z"]) - rb
        if best is None or zb < best[0]:
            best = (zb, float(row["time"]))
        last = row
    vend = math.sqrt(sum(float(last[k]) ** 2 for k in ("vx", "vy", "vz")))
    return best[0], surf - best[0], best[1], vend


def fit(results, mu, rhog):
    rs = rows(results)
    pts = []
    for row in rs:
        rhob, db, h, d = (float(row[k]) for k in ("rho_b", "D_b", "h", "d"))
        H = h + d
        X = (1 / mu) * math.sqrt(rhob / rhog) * db ** (2 / 3) * H ** (1 / 3)
        pts.append((row, H, X))
    print("| ρ_b (kg/m³) | D_b (m) | h (m) | d (m) | H (m) | d, eq. 28 (0.14) (m) | d, eq. 29 (0.1221) (m) | k = d/X |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row, H, X in pts:
        d = float(row["d"])
        # eq. 28 is implicit in d through H = h + d: solve d = c X(h + d)
        pred = []
        for c in (0.14, 0.1221):
            dd = d
            for _ in range(100):
                Xd = (1 / mu) * math.sqrt(float(row["rho_b"]) / rhog) * float(row["D_b"]) ** (2 / 3) * (float(row["h"]) + dd) ** (1 / 3)
                dd = c * Xd
            pred.append(dd)
        print("| %s | %s | %s | %.4f | %.4f | %.4f | %.4f | %.4f |" % (
            row["rho_b"], row["D_b"], row["h"], d, H, pred[0], pred[1], d / X))
    print()

    def kfit(sel, label):
        ps = [(float(r["d"]), X) for r, H, X in pts if sel(r)]
        if not ps:
            return
        sxx = sum(X * X for d, X in ps)
        k = sum(X * d for d, X in ps) / sxx
        n = len(ps)
        se = math.sqrt(sum((d - k * X) ** 2 for d, X in ps) / (n - 1) / sxx) if n > 1 else float("nan")
        print("| %s | %d | %.4f ± %.4f | %.2f | %.2f |" % (label, n, k, se, k / 0.14, k / 0.1221))

    # The law's exponents: d ∝ H^⅓ at a fixed ball. Least squares of
    # log d against log H per ball (D_b, ρ_b), over its drop heights.
    print("| D_b (m) | ρ_b (kg/m³) | β in d ∝ H^β (law: 1/3) |")
    print("|---:|---:|---:|")
    for key in sorted({(r["D_b"], r["rho_b"]) for r, H, X in pts}, key=lambda k: (float(k[0]), float(k[1]))):
        ps = [(math.log(H), math.log(float(r["d"]))) for r, H, X in pts
              if (r["D_b"], r["rho_b"]) == key and float(r["d"]) > 0]
        if len(ps) < 2:
            print("| %s | %s | — |" % key)
            continue
        mx = sum(x for x, y in ps) / len(ps)
        my = sum(y for x, y in ps) / len(ps)
        b = sum((x - mx) * (y - my) for x, y in ps) / sum((x - mx) ** 2 for x, y in ps)
        print("| %s | %s | %.2f |" % (key[0], key[1], b))
    print()

    print("| runs | n | k (± standard error) | k/0.14 | k/0.1221 |")
    print("|---|---:|---:|---:|---:|")
    dbs = sorted({r["D_b"] for r in rs}, key=float)
    for db in dbs:
        kfit(lambda r, db=db: r["D_b"] == db, "D_b = %s m" % db)
        for rho in sorted({r["rho_b"] for r in rs if r["D_b"] == db}, key=float):
            kfit(lambda r, db=db, rho=rho: r["D_b"] == db and r["rho_b"] == rho,
                 "D_b = %s m, ρ_b = %s kg/m³" % (db, rho))


def main():
    a = sys.argv[1:]
    if a[0] == "ke":
        print("%.6g" % ke(a[1], int(a[2]), float(a[3]), float(a[4])))
    elif a[0] == "surface":
        print("%.6f %.6f %d" % surface(a[1], int(a[2]), float(a[3]), float(a[4])))
    elif a[0] == "addball":
        bid, gap, v = addball(a[1], a[2], int(a[3]), float(a[4]), float(a[5]), float(a[6]),
                              float(a[7]), float(a[8]), float(a[9]), float(a[10]), a[11])
        print("%d %.6f %.6f" % (bid, gap, v))
    elif a[0] == "depth":
        print("%.6f %.6f %.5f %.4f" % depth(a[1], int(a[2]), float(a[3]), float(a[4])))
    elif a[0] == "fit":
        fit(a[1], float(a[2]), float(a[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
