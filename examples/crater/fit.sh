#!/usr/bin/env bash
# Crater study of the APGD paper §4.2.5 (eq. 28/29): settle a grain bed
# without the ball until the grains' kinetic energy is below a bound, drop
# balls of several densities from several heights onto the settled bed,
# measure the penetration depth d, and fit k in
#     d = (k/μ) (ρ_b/ρ_g)^½ D_b^⅔ H^⅓,   H = h + d
# (least squares through the origin of d against X = (1/μ)(ρ_b/ρ_g)^½ D_b^⅔ H^⅓).
# Run from the repository root:
#     examples/crater/fit.sh                       # 4000 grains, box 0.4 m, D_b = 0.06 m
#     N=4000 BOX=0.4 DB=0.1 examples/crater/fit.sh
# Parameters (environment):
#   N        grains (4000)           BOX      inner width of the square box, m (0.4)
#   RG       grain radius, m (0.01)
#   PER_ROW  lattice grains per row  (default: floor((BOX-2 RG)/(2.1 RG)))
#   DB       ball diameter, m (0.06; the list "0.06 0.1" runs both)
#   RHOS     ball densities, kg/m³ ("700 900 2200": wood, polypropylene, teflon)
#   HEIGHTS  drop heights of the ball's bottom above the surface, m ("0.1 0.3 0.9")
#   KE_FRAC  settle bound as a fraction of N·m_g·g·r_g (1e-4)
#   T_FALL   first settle chunk, at the scene's tol 1e-5: the lattice falls into a bed, s (0.4)
#   CHUNK    later settle chunks, s (0.1)   SETTLE_TOL  their solver tolerance (1e-6)
#   MAX_SETTLE  give up settling after this, s (2)
#   IMPACT_TOL  solver tolerance of the impact runs (1e-6)
#   DT_FRAC  impact step: the ball moves DT_FRAC grain radii per step at impact (0.2)
#   DT_MAX   largest impact step, s (1e-3)          T_IMPACT  impact run, s (0.15)
#   OUT      output folder (out/crater-fit);  an impact run whose trace exists is reused
set -euo pipefail
N=${N:-4000}; BOX=${BOX:-0.4}; RG=${RG:-0.01}
PER_ROW=${PER_ROW:-$(awk -v b="$BOX" -v r="$RG" 'BEGIN{print int((b-2*r)/(2.1*r))}')}
DB=${DB:-0.06}; RHOS=${RHOS:-"700 900 2200"}; HEIGHTS=${HEIGHTS:-"0.1 0.3 0.9"}
KE_FRAC=${KE_FRAC:-1e-4}; T_FALL=${T_FALL:-0.4}; CHUNK=${CHUNK:-0.1}; SETTLE_TOL=${SETTLE_TOL:-1e-6}
MAX_SETTLE=${MAX_SETTLE:-2}; IMPACT_TOL=${IMPACT_TOL:-1e-6}
DT_FRAC=${DT_FRAC:-0.2}; DT_MAX=${DT_MAX:-1e-3}; T_IMPACT=${T_IMPACT:-0.15}
OUT=${OUT:-out/crater-fit}
RHOG=2500; MU=0.3
HERE=$(cd "$(dirname "$0")" && pwd)
PY="python3 $HERE/crater.py"
mkdir -p "$OUT"
BINDIR=$(mktemp -d)
trap 'rm -rf "$BINDIR"' EXIT
BIN=$BINDIR/gpusim
go build -o "$BIN" ./cmd/gpusim
G="$BIN"

# ---- (a) the bed alone, settled in chunks until KE < bound ----
BED="$OUT/bed-N$N-box$BOX-r$RG"
mkdir -p "$BED"
BOUND=$(awk -v n="$N" -v f="$KE_FRAC" -v r=$RG -v rho=$RHOG 'BEGIN{m=rho*4/3*3.141592653589793*r^3; printf "%.6g", f*n*m*9.81*r}')
if [ ! -f "$BED/settled.json" ]; then
  B=$(awk -v b="$BOX" 'BEGIN{print b/2}')
  ZTOP=$(awk -v n="$N" -v p="$PER_ROW" -v r="$RG" 'BEGIN{z=int((n+p*p-1)/(p*p))*2.1*r+0.06; if (z<0.4) z=0.4; print z}')
  echo "chunk,t_end_s,KE_J,bound_J,max_speed_m_s,wall_s" > "$BED/settle.csv"
  k=0; t=0
  while :; do
    k=$((k+1)); dir="$BED/settle-$k"
    s0=$(date +%s.%N)
    if [ $k -eq 1 ]; then
      "$G" run examples/crater/bed.json --backend cpu --quiet --overwrite --out "$dir" --duration "$T_FALL" \
        --set generators.0.count="$N" --set generators.0.max_per_row="$PER_ROW" \
        --set generators.0.shape.radius="$RG" --set generators.0.spacing="$(awk -v r="$RG" 'BEGIN{print 2.1*r}')" \
        --set "generators.0.origin=[0,0,$(awk -v r="$RG" 'BEGIN{print 1.1*r}')]" --set generators.0.jitter="$(awk -v r="$RG" 'BEGIN{print 0.05*r}')" \
        --set "containers.0.inner_min=[-$B,-$B,0]" --set "containers.0.inner_max=[$B,$B,$ZTOP]"
    else
      "$G" scenes --from "$BED/settle-$((k-1))" > "$BED/restart-$k.json"
      "$G" run "$BED/restart-$k.json" --backend cpu --quiet --overwrite --out "$dir" --duration "$CHUNK" \
        --tol "$SETTLE_TOL" --max-iter 1000
    fi
    s1=$(date +%s.%N)
    c=$CHUNK; [ $k -eq 1 ] && c=$T_FALL
    t=$(awk -v t="$t" -v c="$c" 'BEGIN{print t+c}')
    ke=$($PY ke "$dir/final.csv" "$N" $RG $RHOG)
    vmax=$(awk -F'"max_speed_m_s": ' 'NF>1{sub(/[,}].*/,"",$2); print $2}' "$dir/summary.json")
    echo "$k,$t,$ke,$BOUND,$vmax,$(awk -v a="$s0" -v b="$s1" 'BEGIN{printf "%.1f", b-a}')" | tee -a "$BED/settle.csv"
    if awk -v e="$ke" -v b="$BOUND" 'BEGIN{exit !(e<b)}'; then break; fi
    if awk -v t="$t" -v m="$MAX_SETTLE" 'BEGIN{exit !(t>=m)}'; then
      echo "not settled after $t s (KE $ke J, bound $BOUND J)" >&2; exit 1
    fi
  done
  "$G" scenes --from "$dir" > "$BED/settled.json"
  cp "$dir/final.csv" "$BED/settled.csv"
  echo "$t $ke $BOUND" > "$BED/settled.txt"
fi
read -r TSET KESET BOUND < "$BED/settled.txt"
read -r SURF SSTD NCELL < <($PY surface "$BED/settled.csv" "$N" $RG "$BOX")
echo "bed: $N grains, box $BOX m, settled after $TSET s (KE $KESET J < $BOUND J); surface $SURF m (σ $SSTD m over $NCELL columns)"

# ---- (b) the ball on the settled bed, (c) its depth ----
RES="$OUT/results.csv"
[ -f "$RES" ] || echo "N,box,r_g,D_b,rho_b,h,dt,gap,v0,surface,surface_std,zmin_bottom,d,t_min,v_end,wall_s" > "$RES"
for db in $DB; do
  rb=$(awk -v d="$db" 'BEGIN{print d/2}')
  for rho in $RHOS; do
    for h in $HEIGHTS; do
      dir="$BED/impact-D$db-rho$rho-h$h"
      if grep -q "^$N,$BOX,$RG,$db,$rho,$h," "$RES"; then continue; fi
      v=$(awk -v h="$h" 'BEGIN{print sqrt(2*9.81*h)}')
      dt=$(awk -v v="$v" -v f="$DT_FRAC" -v r=$RG -v m="$DT_MAX" 'BEGIN{d=f*r/v; if (d>m) d=m; printf "%.2g", d}')
      mkdir -p "$dir"
      read -r BID GAP V0 < <($PY addball "$BED/settled.json" "$BED/settled.csv" "$N" $RG "$SURF" "$rb" "$rho" "$h" "$dt" "$T_IMPACT" "$dir/scene.json")
      s0=$(date +%s.%N)
      "$G" run "$dir/scene.json" --backend cpu --quiet --overwrite --out "$dir" --tol "$IMPACT_TOL" --max-iter 1000
      s1=$(date +%s.%N)
      read -r ZMIN D TMIN VEND < <($PY depth "$dir/trace.csv" "$BID" "$rb" "$SURF")
      line="$N,$BOX,$RG,$db,$rho,$h,$dt,$GAP,$V0,$SURF,$SSTD,$ZMIN,$D,$TMIN,$VEND,$(awk -v a="$s0" -v b="$s1" 'BEGIN{printf "%.1f", b-a}')"
      echo "$line" | tee -a "$RES"
    done
  done
done

# ---- fit ----
echo
awk -F, -v n="$N" -v b="$BOX" -v r="$RG" 'NR==1 || ($1==n && $2==b && $3==r)' "$RES" > "$BED/results.csv"
$PY fit "$BED/results.csv" $MU $RHOG
