#!/usr/bin/env python3
"""scripts/math/fit_erfc.py -- the coefficients of ew::op::GeluHw (include/tessera/kernel/fused/expr.hpp).

erfc(z) = t exp(-z^2 + P(t)) for z >= 0, t = 1 / (1 + z / 2): P(t) = ln(erfc(z) / t) + z^2 is smooth on t in [0, 1]
(at t = 0, z = inf, its limit is -ln(2 sqrt(pi))).  A least-squares fit of degree 9 in the monomial basis at 400
Chebyshev nodes of [0, 1], P evaluated with mpmath at 40 digits; prints the coefficients c0..c9 and the fit's largest
error on a grid (in fp64 and with the fp32 Horner evaluation the kernel uses), which is the relative error it adds
to erfc.  Needs numpy and mpmath (pip install numpy mpmath).
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 40
DEG, NODES = 9, 400


def p_exact(t):
    t = mp.mpf(t)
    if t == 0:
        return -mp.log(2 * mp.sqrt(mp.pi))
    z = 2 * (1 - t) / t
    return mp.log(mp.erfc(z)) + z * z - mp.log(t)


xs = [(1 - mp.cos(mp.pi * (k + 0.5) / NODES)) / 2 for k in range(NODES)]
basis = np.array([[float(x) ** j for j in range(DEG + 1)] for x in xs])
values = np.array([float(p_exact(x)) for x in xs])
c = np.linalg.lstsq(basis, values, rcond=None)[0]

grid = np.linspace(0, 1, 1001)
exact = np.array([float(p_exact(g)) for g in grid])
fit64 = np.polyval(c[::-1], grid)
c32, g32 = c.astype(np.float32), grid.astype(np.float32)
fit32 = np.zeros_like(g32)
for j in range(DEG, -1, -1):
    fit32 = (fit32 * g32 + c32[j]).astype(np.float32)
print("coefficients c0..c%d:" % DEG)
print(", ".join("%.9ef" % v for v in c))
print("largest |fit error| on [0, 1]: fp64 %.2e, fp32 Horner %.2e" % (abs(fit64 - exact).max(), abs(fit32 - exact).max()))
