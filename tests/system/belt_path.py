"""The path of a closed belt around circles, as a string would lie (no bending stiffness, no
penetration): the references of tests/system/injected_plant_faults.py. Standard library only.

A circle is (centre (x, y), radius, side): the belt runs clockwise around the drive, on the
outside of a front-side circle (side +1, the drive turns the belt clockwise there) and on the
inside of a back-side one (side -1, the belt bends the other way). Each span is the common
tangent that leaves circle i and meets circle i + 1 on those sides; between two spans the belt
follows the circle's arc.
"""
import math


def tangent(ci, ai, cj, aj):
    """The span from circle i to circle j: the line n . x = d that touches both, with the belt's
    offsets a = side * radius along n (the circle's centre lies at -a n from its tangent point),
    running from i to j along u = (n_y, -n_x). Returns (n, u)."""
    dx, dy = cj[0] - ci[0], cj[1] - ci[1]
    distance, direction = math.hypot(dx, dy), math.atan2(dy, dx)
    spread = math.acos((ai - aj) / distance)
    for angle in (direction + spread, direction - spread):
        n = (math.cos(angle), math.sin(angle))
        u = (n[1], -n[0])
        if u[0] * dx + u[1] * dy > 0.0:
            return n, u
    raise ValueError("no tangent from circle to circle")


def belt_path(circles):
    """(length, spans, wraps): the path's length; per span k (circle k to k + 1) its direction u
    and its end points; per circle the angle the belt wraps it (rad)."""
    spans = []
    for i, (ci, ri, si) in enumerate(circles):
        cj, rj, sj = circles[(i + 1) % len(circles)]
        n, u = tangent(ci, si * ri, cj, sj * rj)
        start = (ci[0] + si * ri * n[0], ci[1] + si * ri * n[1])
        end = (cj[0] + sj * rj * n[0], cj[1] + sj * rj * n[1])
        spans.append({"u": u, "start": start, "end": end})
    length = sum(math.dist(s["start"], s["end"]) for s in spans)
    wraps = []
    for i, (_, radius, side) in enumerate(circles):
        u_in, u_out = spans[i - 1]["u"], spans[i]["u"]
        turn = math.atan2(u_in[0] * u_out[1] - u_in[1] * u_out[0], u_in[0] * u_out[0] + u_in[1] * u_out[1])
        wrap = (-turn if side > 0 else turn) % (2.0 * math.pi)  # clockwise on the front, counter-clockwise behind
        wraps.append(wrap)
        length += radius * wrap
    return length, spans, wraps


def bisect(f, a, b, iterations=100):
    """A root of f in [a, b], where f changes sign."""
    fa = f(a)
    for _ in range(iterations):
        m = 0.5 * (a + b)
        fm = f(m)
        if (fm > 0.0) == (fa > 0.0):
            a, fa = m, fm
        else:
            b = m
    return 0.5 * (a + b)
