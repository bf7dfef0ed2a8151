// Package viz draws a run: Plot writes PNG plots of stats.csv and
// trace.csv with gonum/plot, and Draw (through LoadFrame for a run's
// folder) renders the bodies of one frame as a PNG without ParaView, with a
// small software ray caster: a perspective camera framing the bodies from
// the front right and above, spheres, ellipsoids and movable boxes shaded
// and coloured by speed (viridis), the container's fixed boxes and planes
// as translucent faces with edges, and a colour bar of the speed range.
// PlotResiduals draws the residual histories of gpusim compare's solves
// (fclib.Compare).
package viz
