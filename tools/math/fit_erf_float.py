"""Fits the polynomial coefficients of runtime/kernels/erf_float_impl.h.

  python3 tools/math/fit_erf_float.py     (needs numpy)

Prints, for float erf and erfc:
  * P(u), u = x * x: erf(x) = x * P(u) for |x| < 0.5, degree 4;
  * R(t), t = 1 / (1 + x / 2): erfc(x) = exp(-x * x) * t * R(t) for
    0.5 <= x <= 10.1 (above, erfc(x) rounds to 0 in float), degree 8;
each a minimax fit in relative error (Lawson's iteration over a weighted
least-squares fit at Chebyshev nodes), with the double-precision libm
erf / erfc as the reference, and the largest relative error of the fit
before its coefficients are rounded to float.
"""

import math

import numpy as np


def minimax_fit(f, lo, hi, degree, nodes=4000, iterations=100):
    k = np.arange(nodes)
    u = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / nodes)
    y = np.array([f(v) for v in u])
    a = np.vander(u, degree + 1, increasing=True) / y[:, None]
    w = np.full(nodes, 1.0 / nodes)
    for _ in range(iterations):
        c = np.linalg.lstsq(a * np.sqrt(w)[:, None], np.sqrt(w), rcond=None)[0]
        err = np.abs(a @ c - 1)
        w = w * err
        w /= w.sum()
    return c, np.abs(a @ c - 1).max()


def erf_over_x(u):
    x = math.sqrt(u)
    return math.erf(x) / x if x > 0 else 2 / math.sqrt(math.pi)


def erfc_scaled_over_t(t):
    x = 2 * (1 / t - 1)
    return math.erfc(x) * math.exp(x * x) / t


def show(name, c, err):
    print("%s (max relative error %.2g):" % (name, err))
    for v in c:
        print("    %.9gf," % np.float32(v))


def main():
    show("P(u), u in [0, 0.25]", *minimax_fit(erf_over_x, 0.0, 0.25, 4))
    show("R(t), t in [1 / 6.05, 0.8]",
         *minimax_fit(erfc_scaled_over_t, 1 / (1 + 10.1 / 2), 1 / (1 + 0.5 / 2), 8))


if __name__ == "__main__":
    main()
