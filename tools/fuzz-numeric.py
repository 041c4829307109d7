#!/usr/bin/env python3
"""Numeric fuzzing of Kinase: random differentiable C programs, derivatives
checked three ways.

Each generated program defines `double f(...)` over a few scalar doubles
and/or an array `double *x` of length `n` (read only) and an array `double *y`
(read and written), built from random arithmetic, libm calls where they are
smooth, branches on data, early returns, switches, for/while/do loops with
data-independent trip counts (nested, with break and continue), local arrays,
pointers into arrays, memcpy, a struct (local, by pointer, by value,
returned) and static helper functions (scalar, array reading and writing,
struct, `double *` out-parameter, recursive). Some programs (each feature
with probability FEATURE_P, drawn from a stream of its own, so a program
without them is the one earlier generators made) also have
  global-shadow: a file-scope `static double` array or scalar G, filled by a
      noinline helper from f's values (f calls it first, and again later)
      and read by another noinline helper, by f, and by the callbacks;
  fnptr: callbacks of one type (double (*)(double[, double]) or
      void (*)(double *, double)) called through a static table indexed by
      an int (loop counter, constant, n), through a parameter cb of f that
      main passes as `enzyme_const, callback`, through a helper taking the
      callback (sometimes in a loop), and through a pointer chosen by data.
--force FEATURE gives every program the feature, --avoid no-FEATURE none.
Its main() computes

  (a) the gradient by reverse mode (__enzyme_autodiff: enzyme_out scalars,
      enzyme_dup arrays),
  (b) every directional derivative along a unit input direction by forward
      mode (__enzyme_fwddiff),
  (c) central finite differences with a relative step,

and checks reverse against forward (1e-9 relative), reverse against finite
differences (1e-5 relative, 1e-5 absolute floor), the primal value against
the one this script computed, and the array y left behind by both modes
against the one the plain call leaves. It prints FAIL lines naming the
component and exits 1 when anything disagrees.

Every candidate program is first run here, in Python, by a translation of the
same syntax tree: a candidate whose values leave [-1e4, 1e4], leave the domain
of a math function, come close to a branch or a kink (fabs, fmin, fmax, a
division, the cut of atan2), take a different path at any of the finite
difference points, or whose finite differences at steps h and 2h do not agree
to 1e-6 is dropped and another drawn. What remains is smooth enough around its
inputs that a disagreement is Kinase's.

Each program is compiled with kinase-cc at -O0 and -O2 (-lm), run, and
classified: agree, disagree (wrong derivative), compile failure (a
diagnostic; the messages are counted), crash (the compiler crashed or
emitted invalid IR, or the program died) or timeout (counted with crashes).

  tools/fuzz-numeric.py --seed 1 --count 1000 --jobs 2 --keep-failures DIR
  tools/fuzz-numeric.py --seed 1 --show 17 > prog.c      # one program's source
  tools/fuzz-numeric.py --seed 1 --count 500 --size 2    # bigger programs

Programs are deterministic per (seed, index, --size, --avoid, --force);
every FAIL line gives the --show command that prints the program. The
compiler is --cc, else $KINASE_CC, else build/bin/kinase-cc of this
repository. Exits 1 if any program disagrees, fails to compile or crashes.
"""

import argparse
import collections
import concurrent.futures
import math
import os
import re
import random
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

VALUE_LIMIT = 1e4  # every intermediate value of a candidate stays within this
BASE_MARGIN = 1e-4  # relative distance of branches and kinks at the input
POINT_MARGIN = 1e-8  # the same at the finite-difference points (rounding)
FD_STABILITY = 1e-6  # finite differences at h and 2h agree to this
EPS = 2.0 ** -52

REV_FWD_RTOL = 1e-9
FD_RTOL = 1e-5
FD_ATOL = 1e-5


class Reject(Exception):
    """The candidate is not a fair test: draw another."""


# ---------------------------------------------------------------------------
# Python runtime of a candidate: the translated program calls these.


class _S:
    """struct S { double a, b, c; }"""

    __slots__ = ("a", "b", "c")

    def __init__(self, a, b, c):
        self.a, self.b, self.c = a, b, c

    def copy(self):
        return _S(self.a, self.b, self.c)


class _P:
    """double *p = base + off"""

    __slots__ = ("base", "off")

    def __init__(self, base, off):
        self.base, self.off = base, off

    def __getitem__(self, i):
        return self.base[self.off + i]

    def __setitem__(self, i, v):
        self.base[self.off + i] = v


class Tracer:
    """The path a run takes (branch outcomes, kink sides) and the smallest
    relative margin to any of them."""

    def __init__(self):
        self.trace = []
        self.margin = math.inf

    def note(self, kid, outcome, dist, scale):
        self.trace.append((kid, outcome))
        m = abs(dist) / (1.0 + scale)
        if m < self.margin:
            self.margin = m


def make_runtime():
    state = {"tr": Tracer()}

    def _v(x):
        if not abs(x) <= VALUE_LIMIT:  # also NaN
            raise Reject("value")
        return x

    def _cmp(k, lhs, rhs):
        o = lhs > rhs
        state["tr"].note(k, o, lhs - rhs, abs(lhs) + abs(rhs))
        return o

    def _abs(k, v):
        state["tr"].note(k, v > 0, v, abs(v))
        return abs(v)

    def _min(k, a, b):
        state["tr"].note(k, a < b, a - b, abs(a) + abs(b))
        return min(a, b)

    def _max(k, a, b):
        state["tr"].note(k, a > b, a - b, abs(a) + abs(b))
        return max(a, b)

    def _pos(k, v):
        if not v > 0:
            raise Reject("domain")
        state["tr"].note(k, True, v, abs(v))
        return v

    def _den(k, v):
        if v == 0:
            raise Reject("division")
        state["tr"].note(k, v > 0, v, abs(v))
        return v

    def _atan2(k, a, b):
        tr = state["tr"]
        tr.note(k, None, math.hypot(a, b), abs(a) + abs(b))
        if b < 0:
            tr.note(k, ("cut", a > 0), a, abs(a) + abs(b))
        else:
            tr.note(k, ("right",), 1.0, 0.0)
        return math.atan2(a, b)

    def _hypot(k, a, b):
        r = math.hypot(a, b)
        state["tr"].note(k, None, r, abs(a) + abs(b))
        return r

    def _copy(dst, src, n):
        vals = [src[i] for i in range(n)]
        for i in range(n):
            dst[i] = vals[i]

    ns = {
        "_copy": _copy, "math": math, "_S": _S, "_P": _P, "_v": _v, "_cmp": _cmp, "_abs": _abs, "_min": _min,
        "_max": _max, "_pos": _pos, "_den": _den, "_atan2": _atan2, "_hypot": _hypot,
    }
    return ns, state


# ---------------------------------------------------------------------------
# The generator: one syntax tree, written out as C and as Python.


class Arr:
    def __init__(self, name, lensym, minlen, writable, root=None):
        self.name, self.lensym, self.minlen, self.writable = name, lensym, minlen, writable
        self.root = root or name  # the array a pointer points into


class Scope:
    def __init__(self, parent=None):
        if parent is None:
            self.scalars = []  # (c, py) readable doubles
            self.locals = []  # writable double variables
            self.arrays = []  # Arr
            self.loops = []  # (var, bound symbol or None)
            self.structs = []  # (c prefix, py prefix)
            self.fns = []  # function pointers: ("var", name) or ("table", name, length)
        else:
            self.scalars = list(parent.scalars)
            self.locals = list(parent.locals)
            self.arrays = list(parent.arrays)
            self.loops = list(parent.loops)
            self.structs = list(parent.structs)
            self.fns = list(parent.fns)


def cnum(v):
    s = repr(float(v))
    return "(%s)" % s if s.startswith("-") else s


class Gen:
    def __init__(self, rng, avoid=(), size=1, features=()):
        self.rng = rng
        self.avoid = avoid
        self.features = features  # of FEATURES: drawn per program, see features()
        self.size = size  # nesting depth and statement count grow with it
        self.uid = 0
        self.kid = 0
        self.c = []
        self.py = []
        self.depth = 0
        self.helpers = []  # (kind, name, params)
        self.used = set()  # helpers called from f
        self.f_memory = False  # f has a local array or struct
        self.in_f = False
        self.callable_limit = 0  # helpers usable from the function being generated
        # global-shadow: a file-scope array, its writer and whether f has called it
        self.garr = None
        self.gscalar = None  # the name of G when it is a scalar
        self.gwriter = None  # (name, form, params)
        self.g_ready = False
        # fnptr: the callbacks of one type, the pointers f may call through
        self.fnt = None  # the typedef of the callbacks' pointer type
        self.fam_kind = None  # "sc": double (*)(double[, double]); "wp": void (*)(double *, double)
        self.arity = 0
        self.fam = []  # callbacks (address taken)
        self.fns_top = []  # pointers visible in f: a table, the parameter cb
        self.fns_used = set()  # ... of which f calls through these
        self.cb = None  # the callback main passes to f as cb
        self.has_n = False

    # -- output --
    def name(self, prefix):
        self.uid += 1
        return "%s%d" % (prefix, self.uid)

    def kink(self):
        self.kid += 1
        return self.kid

    def line(self, c, py):
        ind = "  " * self.depth
        if c is not None:
            self.c.append(ind + c)
        if py is not None:
            self.py.append(ind + py)

    def pick(self, weighted):
        total = sum(w for _, w in weighted)
        r = self.rng.random() * total
        for item, w in weighted:
            r -= w
            if r < 0:
                return item
        return weighted[-1][0]

    # -- expressions: (c, py) --
    def index(self, sc, arr):
        forms = ["%d" % k for k in range(min(arr.minlen, 3))]
        forms += [v for v, b in sc.loops if b == arr.lensym] * 3
        forms += ["(%s + %d) %% %s" % (v, self.rng.randint(0, 3), arr.lensym) for v, _ in sc.loops]
        return self.rng.choice(forms)

    def leaf(self, sc):
        r = self.rng
        choices = [("const", 2)]
        if sc.scalars:
            choices.append(("var", 7))
        if sc.arrays:
            choices.append(("arr", 4))
        if sc.loops:
            choices.append(("loop", 1))
        if sc.structs:
            choices.append(("field", 2))
        kind = self.pick(choices)
        if kind == "const":
            v = cnum(round(r.uniform(-2.0, 2.0), 2))
            return v, v
        if kind == "var":
            if r.random() < 0.6:
                return r.choice(sc.scalars[-4:])  # recent values: more data flow
            return r.choice(sc.scalars)
        if kind == "arr":
            a = r.choice(sc.arrays)
            i = self.index(sc, a)
            e = "%s[%s]" % (a.name, i)
            return e, e
        if kind == "loop":
            v, _ = r.choice(sc.loops)
            k = cnum(r.choice([0.25, 0.5, -0.3, 0.125]))
            return "(%s * %s)" % (k, v), "(%s * %s)" % (k, v)
        cp, pp = r.choice(sc.structs)
        f = r.choice("abc")
        return cp + f, pp + f

    def positive(self, sc, d):
        """An expression that is positive whatever its operand."""
        a = self.expr(sc, d)
        kind = self.rng.choice(["sq", "sin", "tanh", "hyp", "exp"])
        if kind == "sq":
            if a[0].isidentifier() or re.fullmatch(r"[\w.>\-\[\]]+", a[0]):
                return "(1.0 + %s * %s)" % (a[0], a[0]), "(1.0 + %s * %s)" % (a[1], a[1])
            kind = "sin"
        if kind == "sin":
            return "(2.0 + sin(%s))" % a[0], "(2.0 + math.sin(%s))" % a[1]
        if kind == "tanh":
            return "(1.5 + tanh(%s))" % a[0], "(1.5 + math.tanh(%s))" % a[1]
        if kind == "hyp":
            return "hypot(%s, 0.75)" % a[0], "math.hypot(%s, 0.75)" % a[1]
        return "exp(0.5 * tanh(%s))" % a[0], "math.exp(0.5 * math.tanh(%s))" % a[1]

    def expr(self, sc, d):
        r = self.rng
        if d <= 0 or r.random() < 0.2:
            return self.leaf(sc)
        ops = [("add", 5), ("sub", 3), ("mul", 5), ("divsafe", 3), ("divraw", 1),
               ("sin", 2), ("cos", 2), ("tanh", 1), ("exp", 1.5), ("logsafe", 1.5),
               ("lograw", 0.7), ("sqrtsafe", 1.5), ("sqrtraw", 0.7), ("powc", 1),
               ("powd", 0.7), ("powi", 0.7), ("fabs", 1), ("fmin", 1), ("fmax", 1),
               ("atan2", 0.7), ("hypot", 0.7), ("hypotc", 0.5), ("select", 1), ("more", 3)]
        calls = [h for h in self.helpers[: self.callable_limit]
                 if h[0] in ("sc", "rd", "sv", "ms", "rec", "gr", "ap")]
        own_structs = [s for s in sc.structs if not s[0].endswith("->")]
        calls = [h for h in calls if h[0] in ("sc", "ms", "rec") or (h[0] == "rd" and sc.arrays)
                 or (h[0] == "sv" and own_structs) or (h[0] == "gr" and self.g_ready)
                 or (h[0] == "ap" and self.fn_ok())]
        if calls:
            ops.append(("call", 3))
        if sc.fns and self.fam_kind == "sc" and self.fn_ok():
            ops.append(("fcall", 2))
        op = self.pick(ops)
        e = lambda: self.expr(sc, d - 1)  # noqa: E731
        if op in ("add", "sub", "mul"):
            a, b = e(), e()
            s = {"add": "+", "sub": "-", "mul": "*"}[op]
            return "(%s %s %s)" % (a[0], s, b[0]), "_v(%s %s %s)" % (a[1], s, b[1])
        if op == "divsafe":
            a, b = e(), self.positive(sc, d - 1)
            return "(%s / %s)" % (a[0], b[0]), "_v(%s / %s)" % (a[1], b[1])
        if op == "divraw":
            a, b = e(), e()
            return "(%s / %s)" % (a[0], b[0]), "_v(%s / _den(%d, %s))" % (a[1], self.kink(), b[1])
        if op in ("sin", "cos", "tanh", "exp"):
            a = e()
            return "%s(%s)" % (op, a[0]), "_v(math.%s(%s))" % (op, a[1])
        if op in ("logsafe", "sqrtsafe"):
            fn = op[:-4]
            a = self.positive(sc, d - 1)
            return "%s(%s)" % (fn, a[0]), "_v(math.%s(%s))" % (fn, a[1])
        if op in ("lograw", "sqrtraw"):
            fn = op[:-3]
            a = e()
            return "%s(%s)" % (fn, a[0]), "_v(math.%s(_pos(%d, %s)))" % (fn, self.kink(), a[1])
        if op == "powc":
            a = self.positive(sc, d - 1)
            k = cnum(r.choice([-2.5, -1.0, -0.5, 0.5, 1.5, 2.0, 3.0, round(r.uniform(-2, 3), 2)]))
            return "pow(%s, %s)" % (a[0], k), "_v(math.pow(%s, %s))" % (a[1], k)
        if op == "powd":
            a, b = self.positive(sc, d - 1), e()
            return "pow(%s, %s)" % (a[0], b[0]), "_v(math.pow(%s, %s))" % (a[1], b[1])
        if op == "powi":
            a = e()
            k = r.choice(["2.0", "3.0"])
            return "pow(%s, %s)" % (a[0], k), "_v(math.pow(%s, %s))" % (a[1], k)
        if op == "fabs":
            a = e()
            return "fabs(%s)" % a[0], "_abs(%d, %s)" % (self.kink(), a[1])
        if op in ("fmin", "fmax"):
            a, b = e(), e()
            return "%s(%s, %s)" % (op, a[0], b[0]), "_%s(%d, %s, %s)" % (op[1:], self.kink(), a[1], b[1])
        if op == "atan2":
            a, b = e(), e()
            return "atan2(%s, %s)" % (a[0], b[0]), "_atan2(%d, %s, %s)" % (self.kink(), a[1], b[1])
        if op == "hypot":
            a, b = e(), e()
            return "hypot(%s, %s)" % (a[0], b[0]), "_v(_hypot(%d, %s, %s))" % (self.kink(), a[1], b[1])
        if op == "hypotc":
            a = e()
            k = cnum(r.choice([0.5, 1.0, 2.0]))
            return "hypot(%s, %s)" % (a[0], k), "_v(math.hypot(%s, %s))" % (a[1], k)
        if op == "more":  # the rest of libm, each where it is smooth
            a = e()
            fn = r.choice(["cbrt", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
                           "atanh", "exp2", "expm1", "log2", "log10", "log1p", "erf", "erfc", "ldexp"])
            if fn in ("cbrt", "log2", "log10"):
                a = self.positive(sc, d - 1)
            elif fn in ("tan", "asin", "acos", "atanh"):
                a = ("0.9 * tanh(%s)" % a[0], "0.9 * math.tanh(%s)" % a[1])
            elif fn == "acosh":
                p = self.positive(sc, d - 1)
                a = ("1.25 + %s" % p[0], "1.25 + %s" % p[1])
            elif fn == "log1p":
                p = self.positive(sc, d - 1)
                a = ("%s - 0.5" % p[0], "%s - 0.5" % p[1]) if "tanh" in p[0] else p
            if fn == "ldexp":
                k = r.choice([-2, -1, 1, 3])
                return "ldexp(%s, %d)" % (a[0], k), "_v(math.ldexp(%s, %d))" % (a[1], k)
            return "%s(%s)" % (fn, a[0]), "_v(math.%s(%s))" % (fn, a[1])
        if op == "fcall":
            return self.fcall_expr(sc, d)
        if op == "select":
            a, b, t, f = e(), e(), e(), e()
            return ("(%s > %s ? %s : %s)" % (a[0], b[0], t[0], f[0]),
                    "(%s if _cmp(%d, %s, %s) else %s)" % (t[1], self.kink(), a[1], b[1], f[1]))
        return self.call_expr(sc, r.choice(calls), d)

    def call_expr(self, sc, h, d):
        r = self.rng
        e = lambda: self.expr(sc, d - 1)  # noqa: E731
        kind, hname, params = h
        self.used.add(hname)
        own_structs = [s for s in sc.structs if not s[0].endswith("->")]
        if kind == "rec":
            a = e()
            k = r.randint(0, 3)
            return "%s(%s, %d)" % (hname, a[0], k), "%s(%s, %d)" % (hname, a[1], k)
        if kind == "ms":
            args = [e() for _ in params]
            f = r.choice("abc")
            return ("%s(%s).%s" % (hname, ", ".join(a[0] for a in args), f),
                    "%s(%s).%s" % (hname, ", ".join(a[1] for a in args), f))
        if kind in ("sc", "gr"):
            args = [e() for _ in params]
            return ("%s(%s)" % (hname, ", ".join(a[0] for a in args)),
                    "%s(%s)" % (hname, ", ".join(a[1] for a in args)))
        if kind == "ap":
            fc, fp = self.fn_pointer(sc, direct=True)
            args = [e() for _ in params[1:]]
            return ("%s(%s, %s)" % (hname, fc, ", ".join(a[0] for a in args)),
                    "%s(%s, %s)" % (hname, fp, ", ".join(a[1] for a in args)))
        if kind == "rd":
            arr = r.choice(sc.arrays)
            a = e()
            return ("%s(%s, %s, %s)" % (hname, arr.name, arr.lensym, a[0]),
                    "%s(%s, %s, %s)" % (hname, arr.name, arr.lensym, a[1]))
        cp, pp = r.choice(own_structs)
        a = e()
        return "%s(%s, %s)" % (hname, cp[:-1], a[0]), "%s(%s.copy(), %s)" % (hname, pp[:-1], a[1])

    # -- function pointers (fnptr) --
    def fn_ok(self):
        """Callbacks may read G: none is called before f's first call of
        G's writer."""
        return not (self.in_f and self.gwriter and not self.g_ready)

    def fn_pointer(self, sc, direct=False, entry=None):
        """A function pointer value: a table element, the parameter cb, a
        local pointer; with direct, also a callback named directly."""
        r = self.rng
        if entry is None:
            options = list(sc.fns) + ([("name", n) for n in self.fam] if direct else [])
            entry = r.choice(options)
        if self.in_f:
            self.fns_used.add(entry[1])
        if entry[0] != "table":
            return entry[1], entry[1]
        m = entry[2]
        forms = ["%d" % k for k in range(m)]
        forms += ["(%s + %d) %% %d" % (v, r.randint(0, m - 1), m) for v, _ in sc.loops] * 2
        if self.has_n:
            forms.append("n %% %d" % m)
        i = r.choice(forms)
        e = "%s[%s]" % (entry[1], i)
        return e, e

    def fn_use(self, sc, entry):
        """A statement calling through the pointer entry."""
        r = self.rng
        if self.fam_kind == "wp":
            if not (sc.locals or sc.structs or any(a.writable for a in sc.arrays)):
                self.stmt(sc, 0, force="decl")
            self.wp_call(sc, self.fn_pointer(sc, entry=entry), r.randint(1, 2))
            return
        t = self.name("t")
        a = self.fcall_expr(sc, r.randint(1, 2), entry)
        self.line("double %s = %s;" % (t, a[0]), "%s = _v(%s)" % (t, a[1]))
        sc.scalars.append((t, t))
        sc.locals.append(t)

    def fcall_expr(self, sc, d, entry=None):
        """A call through a function pointer."""
        fc, fp = self.fn_pointer(sc, entry=entry)
        args = [self.expr(sc, d - 1) for _ in range(self.arity)]
        return ("%s(%s)" % (fc, ", ".join(a[0] for a in args)),
                "%s(%s)" % (fp, ", ".join(a[1] for a in args)))

    # -- statements --
    def block(self, sc, count, depth):
        inner = Scope(sc)
        for _ in range(count):
            self.stmt(inner, depth)

    def loop_header(self, sc):
        """Emits a for header; returns (loop variable, bound symbol)."""
        r = self.rng
        v = self.name("i")
        outer = [(lv, b) for lv, b in sc.loops if b is not None]
        bounds = [str(r.randint(1, 4))] + [a.lensym for a in sc.arrays] * 2
        kind = self.pick([("up", 6), ("down", 2), ("tri", 3 if outer else 0)])
        if kind == "tri":
            lv, b = r.choice(outer)
            self.line("for (int %s = 0; %s <= %s; %s++) {" % (v, v, lv, v),
                      "for %s in range(0, %s + 1):" % (v, lv))
            return v, b
        b = r.choice(bounds)
        if kind == "down":
            self.line("for (int %s = %s - 1; %s >= 0; %s--) {" % (v, b, v, v),
                      "for %s in range(%s - 1, -1, -1):" % (v, b))
        else:
            self.line("for (int %s = 0; %s < %s; %s++) {" % (v, v, b, v),
                      "for %s in range(0, %s):" % (v, b))
        return v, b

    def stmt(self, sc, depth, force=None, helper=None, fentry=None):
        r = self.rng
        kinds = [("decl", 5 if not sc.loops else 2)]
        if sc.locals:
            kinds.append(("assign", 4 if not sc.loops else 7))
        if any(a.writable for a in sc.arrays):
            kinds.append(("arrwrite", 3))
        if sc.structs:
            kinds.append(("fieldwrite", 2))
        if depth < 1 + self.size:
            kinds += [("if", 2), ("for", 3), ("while", 1)]
            if sc.loops:
                kinds.append(("switch", 1))
        if depth == 0:
            kinds += [("localarr", 1), ("struct", 1)]
            if self.in_f and any(a.minlen >= 3 for a in sc.arrays):
                kinds.append(("ptr", 1))
            own = [s for s in sc.structs if not s[0].endswith("->")]
            if own:
                kinds.append(("structcopy", 1))
            if any(a.writable for a in sc.arrays):
                kinds.append(("memcpy", 1))
        ms = [h for h in self.helpers[: self.callable_limit] if h[0] == "ms"]
        if ms and depth == 0:
            kinds.append(("structcall", 1.5))
        wr = [h for h in self.helpers[: self.callable_limit] if h[0] == "wr"]
        st = [h for h in self.helpers[: self.callable_limit] if h[0] == "st"]
        if wr and any(a.writable for a in sc.arrays):
            kinds.append(("callwr", 1.5))
        own_structs = [s for s in sc.structs if not s[0].endswith("->")]
        if st and own_structs:
            kinds.append(("callst", 1.5))
        wp = [h for h in self.helpers[: self.callable_limit] if h[0] == "wp"]
        if wp and (sc.locals or sc.structs or any(a.writable for a in sc.arrays)):
            kinds.append(("callwp", 1.5))
        if self.in_f and self.fam:
            kinds.append(("fnsel", 1))
        if self.fam_kind == "wp" and sc.fns and (sc.locals or sc.structs or any(a.writable for a in sc.arrays)):
            kinds.append(("callfp", 1.5))
        if self.in_f and self.g_ready:
            kinds.append(("gwcall", 1))
        kind = force or self.pick(kinds)
        if helper is not None:
            wr = st = wp = [helper]
        ed = r.randint(1, 3)
        if kind == "decl":
            v = self.name("t")
            a = self.expr(sc, ed)
            self.line("double %s = %s;" % (v, a[0]), "%s = _v(%s)" % (v, a[1]))
            sc.scalars.append((v, v))
            sc.locals.append(v)
        elif kind == "assign":
            v = r.choice(sc.locals)
            a = self.expr(sc, ed)
            form = r.choice(["=", "+=", "-=", "*"])
            if form == "=":
                self.line("%s = %s;" % (v, a[0]), "%s = _v(%s)" % (v, a[1]))
            elif form == "*":
                k = cnum(round(r.uniform(0.3, 0.9), 2))
                self.line("%s = %s * %s + %s;" % (v, v, k, a[0]), "%s = _v(%s * %s + %s)" % (v, v, k, a[1]))
            else:
                self.line("%s %s %s;" % (v, form, a[0]), "%s = _v(%s %s %s)" % (v, v, form[0], a[1]))
        elif kind == "arrwrite":
            arr = r.choice([a for a in sc.arrays if a.writable])
            i = self.index(sc, arr)
            a = self.expr(sc, ed)
            t = "%s[%s]" % (arr.name, i)
            if r.random() < 0.5:
                self.line("%s = %s;" % (t, a[0]), "%s = _v(%s)" % (t, a[1]))
            else:
                self.line("%s += %s;" % (t, a[0]), "%s = _v(%s + %s)" % (t, t, a[1]))
        elif kind == "fieldwrite":
            cp, pp = r.choice(sc.structs)
            f = r.choice("abc")
            a = self.expr(sc, ed)
            if r.random() < 0.5:
                self.line("%s%s = %s;" % (cp, f, a[0]), "%s%s = _v(%s)" % (pp, f, a[1]))
            else:
                self.line("%s%s += %s;" % (cp, f, a[0]), "%s%s = _v(%s%s + %s)" % (pp, f, pp, f, a[1]))
        elif kind == "if":
            a = self.expr(sc, r.randint(0, 2))
            if r.random() < 0.3:
                b = (cnum(round(r.uniform(-1.5, 1.5), 2)),) * 2
            else:
                b = self.expr(sc, r.randint(0, 2))
            self.line("if (%s > %s) {" % (a[0], b[0]), "if _cmp(%d, %s, %s):" % (self.kink(), a[1], b[1]))
            self.depth += 1
            self.line(None, "pass")
            inner = Scope(sc)
            for _ in range(r.randint(1, 2)):
                self.stmt(inner, depth + 1)
            if depth == 0 and self.in_f and r.random() < 0.25:
                self.ret(inner)  # an early exit
            self.depth -= 1
            if r.random() < 0.7:
                self.line("} else {", "else:")
                self.depth += 1
                self.line(None, "pass")
                self.block(sc, r.randint(1, 2), depth + 1)
                self.depth -= 1
            self.line("}", None)
        elif kind == "for":
            v, b = self.loop_header(sc)
            inner = Scope(sc)
            inner.loops.append((v, b))
            self.depth += 1
            self.line(None, "pass")
            jump = self.pick([(None, 6), ("continue", 1), ("break", 1)])
            if jump:  # data-independent
                k = r.randint(0, 2)
                cond = ("%s == %d" % (v, k)) if jump == "continue" else ("%s > %d" % (v, k))
                self.line("if (%s) %s;" % (cond, jump), "if %s: %s" % (cond, jump))
            for _ in range(r.randint(1, 3)):
                self.stmt(inner, depth + 1)
            self.depth -= 1
            self.line("}", None)
        elif kind == "while":
            v = self.name("k")
            b = r.choice([str(r.randint(1, 4))] + [a.lensym for a in sc.arrays])
            do = r.random() < 0.4
            self.line("int %s = 0;" % v, "%s = 0" % v)
            self.line("do {" if do else "while (%s < %s) {" % (v, b), "while %s < %s:" % (v, b))
            inner = Scope(sc)
            inner.loops.append((v, b))
            self.depth += 1
            self.line(None, "pass")
            for _ in range(r.randint(1, 2)):
                self.stmt(inner, depth + 1)
            self.line("%s++;" % v if not do else None, "%s += 1" % v)
            self.depth -= 1
            self.line("} while (++%s < %s);" % (v, b) if do else "}", None)
        elif kind == "switch":
            v, _ = r.choice(sc.loops)
            cases = r.randint(2, 3)
            self.line("switch (%s %% %d) {" % (v, cases), None)
            for c in range(cases):
                last = c == cases - 1
                self.line(("default: {" if last else "case %d: {" % c),
                          ("else:" if last else "%s %s %% %d == %d:" % ("if" if c == 0 else "elif", v, cases, c)))
                self.depth += 1
                self.line(None, "pass")
                self.block(sc, r.randint(1, 2), depth + 1)
                self.line("break;", None)
                self.depth -= 1
                self.line("}", None)
            self.line("}", None)
        elif kind == "structcopy":
            own = [s for s in sc.structs if not s[0].endswith("->")]
            src = r.choice(own)[0][:-1]
            if len(own) > 1 and r.random() < 0.5:
                dst = r.choice([s[0][:-1] for s in own if s[0][:-1] != src])
                self.line("%s = %s;" % (dst, src), "%s = %s.copy()" % (dst, src))
            else:
                v = self.name("s")
                self.line("struct S %s = %s;" % (v, src), "%s = %s.copy()" % (v, src))
                sc.structs.append((v + ".", v + "."))
        elif kind == "memcpy":
            dst = r.choice([a for a in sc.arrays if a.writable])
            src = r.choice(sc.arrays)
            n = r.randint(1, min(dst.minlen, src.minlen))
            fn = "memmove" if dst.root == src.root else "memcpy"
            self.line("%s(%s, %s, %d * sizeof(double));" % (fn, dst.name, src.name, n),
                      "_copy(%s, %s, %d)" % (dst.name, src.name, n))
        elif kind == "localarr":
            v = self.name("w")
            n = r.randint(2, 5)
            if r.random() < 0.5:
                vals = [self.expr(sc, r.randint(0, 2)) for _ in range(n)]
                self.line("double %s[%d] = {%s};" % (v, n, ", ".join(a[0] for a in vals)),
                          "%s = [%s]" % (v, ", ".join(a[1] for a in vals)))
            else:
                i = self.name("i")
                inner = Scope(sc)
                inner.loops.append((i, str(n)))
                a = self.expr(inner, r.randint(1, 2))
                self.line("double %s[%d];" % (v, n), "%s = [0.0] * %d" % (v, n))
                self.line("for (int %s = 0; %s < %d; %s++)" % (i, i, n, i), "for %s in range(0, %d):" % (i, n))
                self.depth += 1
                self.line("%s[%s] = %s;" % (v, i, a[0]), "%s[%s] = _v(%s)" % (v, i, a[1]))
                self.depth -= 1
            sc.arrays.append(Arr(v, str(n), n, True))
            self.f_memory = True
        elif kind == "struct":
            v = self.name("s")
            vals = [self.expr(sc, r.randint(0, 2)) for _ in range(3)]
            self.line("struct S %s = {%s};" % (v, ", ".join(a[0] for a in vals)),
                      "%s = _S(%s)" % (v, ", ".join(a[1] for a in vals)))
            sc.structs.append((v + ".", v + "."))
            self.f_memory = True
        elif kind == "callwp":
            _, hname, _ = r.choice(wp)
            self.used.add(hname)
            self.wp_call(sc, (hname, hname), ed)
        elif kind == "callfp":  # through a pointer to a void (double *, double) callback
            self.wp_call(sc, self.fn_pointer(sc, entry=fentry), ed)
        elif kind == "ptr":
            base = r.choice([a for a in sc.arrays if a.minlen >= 3])
            k = r.randint(1, base.minlen - 2)
            v = self.name("q")
            self.line("%sdouble *%s = %s + %d;" % ("" if base.writable else "const ", v, base.name, k),
                      "%s = _P(%s, %d)" % (v, base.name, k))
            sc.arrays.append(Arr(v, "(%s - %d)" % (base.lensym, k), base.minlen - k, base.writable, base.root))
        elif kind == "fnsel":  # a callee chosen by data
            v = self.name("g")
            a, b = self.expr(sc, r.randint(0, 2)), self.expr(sc, r.randint(0, 2))
            p, q = self.fn_pointer(sc, direct=True), self.fn_pointer(sc, direct=True)
            self.line("%s %s = %s > %s ? %s : %s;" % (self.fnt, v, a[0], b[0], p[0], q[0]),
                      "%s = %s if _cmp(%d, %s, %s) else %s" % (v, p[1], self.kink(), a[1], b[1], q[1]))
            sc.fns.append(("var", v))
            self.fn_use(sc, ("var", v))
        elif kind == "gwcall":
            self.gwrite_call(sc)
        elif kind == "structcall":
            h = r.choice(ms)
            self.used.add(h[1])
            v = self.name("s")
            args = [self.expr(sc, r.randint(0, 2)) for _ in h[2]]
            self.line("struct S %s = %s(%s);" % (v, h[1], ", ".join(a[0] for a in args)),
                      "%s = %s(%s)" % (v, h[1], ", ".join(a[1] for a in args)))
            sc.structs.append((v + ".", v + "."))
            self.f_memory = True
        elif kind == "callwr":
            _, hname, _ = r.choice(wr)
            self.used.add(hname)
            arr = r.choice([a for a in sc.arrays if a.writable])
            a = self.expr(sc, ed)
            self.line("%s(%s, %s, %s);" % (hname, arr.name, arr.lensym, a[0]),
                      "%s(%s, %s, %s)" % (hname, arr.name, arr.lensym, a[1]))
        elif kind == "callst":
            _, hname, _ = r.choice(st)
            self.used.add(hname)
            cp, pp = r.choice(own_structs)
            a = self.expr(sc, ed)
            self.line("%s(&%s, %s);" % (hname, cp[:-1], a[0]), "%s(%s, %s)" % (hname, pp[:-1], a[1]))

    def wp_call(self, sc, callee, ed):
        """callee(&target, expression); for a helper writing through a double *"""
        r = self.rng
        targets = [("&" + v, v) for v in sc.locals] * 2
        for arr in sc.arrays:
            if arr.writable:
                t = "%s[%s]" % (arr.name, self.index(sc, arr))
                targets.append(("&" + t, t))
        for cp, pp in sc.structs:
            f = r.choice("abc")
            targets.append(("&" + cp + f, pp + f))
        ct, pt = r.choice(targets)
        a = self.expr(sc, ed)
        self.line("%s(%s, %s);" % (callee[0], ct, a[0]), "%s = %s(%s, %s)" % (pt, callee[1], pt, a[1]))

    # -- functions --
    def rec_helper(self):
        """static double h(double p, int d): recursion d levels deep"""
        r = self.rng
        hname, p, dd = self.name("h"), self.name("p"), self.name("d")
        sc = Scope()
        sc.scalars.append((p, p))
        self.line("static double %s(double %s, int %s) {" % (hname, p, dd), "def %s(%s, %s):" % (hname, p, dd))
        self.depth += 1
        a = self.expr(sc, r.randint(1, 2))
        self.line("if (%s <= 0)" % dd, "if %s <= 0:" % dd)
        self.line("  return %s;" % a[0], "  return _v(%s)" % a[1])
        arg = self.expr(sc, r.randint(1, 2))
        rc = ("%s(%s, %s - 1)" % (hname, arg[0], dd), "%s(%s, %s - 1)" % (hname, arg[1], dd))
        b = self.expr(sc, r.randint(0, 2))
        form = r.choice(["(sin(%s) + %s)", "(%s * %s)", "(0.5 * %s - %s)"])
        pyform = form.replace("sin(", "math.sin(")
        self.line("return %s;" % (form % (rc[0], b[0])), "return _v(%s)" % (pyform % (rc[1], b[1])))
        self.depth -= 1
        self.line("}", None)
        self.line("", "")
        self.helpers.append(("rec", hname, [p, dd]))

    def helper(self, kind):
        if kind == "rec":
            return self.rec_helper()
        r = self.rng
        hname = self.name("h")
        sc = Scope()
        self.callable_limit = len(self.helpers)
        if kind == "ms":
            params = [self.name("p") for _ in range(r.randint(1, 2))]
            self.line("static struct S %s(%s) {" % (hname, ", ".join("double " + p for p in params)),
                      "def %s(%s):" % (hname, ", ".join(params)))
            for p in params:
                sc.scalars.append((p, p))
                sc.locals.append(p)
        elif kind in ("sc", "cb"):
            if kind == "cb":  # a callback: the family's arity, address taken
                params = [self.name("p") for _ in range(self.arity)]
                attr = "__attribute__((noinline)) " if r.random() < 0.3 else ""
                if self.gwriter and "global-in-callback" not in self.avoid and r.random() < 0.5:
                    self.global_in_scope(sc, False)
            else:
                params = [self.name("p") for _ in range(r.randint(1, 3))]
                attr = ""
            self.line("static %sdouble %s(%s) {" % (attr, hname, ", ".join("double " + p for p in params)),
                      "def %s(%s):" % (hname, ", ".join(params)))
            for p in params:
                sc.scalars.append((p, p))
                sc.locals.append(p)
        elif kind in ("rd", "wr"):
            v, m, p = self.name("v"), self.name("m"), self.name("p")
            params = [v, m, p]
            const = "const " if kind == "rd" else ""
            ret = "double" if kind == "rd" else "void"
            self.line("static %s %s(%sdouble *%s, int %s, double %s) {" % (ret, hname, const, v, m, p),
                      "def %s(%s, %s, %s):" % (hname, v, m, p))
            sc.arrays.append(Arr(v, m, 2, kind == "wr"))
            sc.scalars.append((p, p))
            sc.locals.append(p)
        elif kind in ("wp", "cbw"):
            o, p = self.name("o"), self.name("p")
            params = [o, p]
            attr = "__attribute__((noinline)) " if kind == "cbw" and r.random() < 0.3 else ""
            if kind == "cbw" and self.gwriter and "global-in-callback" not in self.avoid and r.random() < 0.5:
                self.global_in_scope(sc, False)
            self.line("static %svoid %s(double *%s, double %s) {" % (attr, hname, o, p),
                      "def %s(%s, %s):" % (hname, o, p))
            sc.scalars += [("(*%s)" % o, o), (p, p)]
            sc.locals.append(p)
        elif kind == "st":
            p, q = self.name("p"), self.name("q")
            params = [p, q]
            self.line("static void %s(struct S *%s, double %s) {" % (hname, p, q),
                      "def %s(%s, %s):" % (hname, p, q))
            sc.structs.append((p + "->", p + "."))
            sc.scalars.append((q, q))
            sc.locals.append(q)
        else:  # sv
            s, q = self.name("s"), self.name("q")
            params = [s, q]
            if "byval-write" in self.avoid:  # the callee writes a copy of its own
                self.line("static double %s(struct S %s_in, double %s) {" % (hname, s, q),
                          "def %s(%s, %s):" % (hname, s, q))
                self.line("  struct S %s = %s_in;" % (s, s), None)
            else:
                self.line("static double %s(struct S %s, double %s) {" % (hname, s, q),
                          "def %s(%s, %s):" % (hname, s, q))
            sc.structs.append((s + ".", s + "."))
            sc.scalars.append((q, q))
            sc.locals.append(q)
        self.depth += 1
        self.line(None, "pass")
        if kind in ("rd", "wr"):
            # at least one loop over the array
            acc = None
            if kind == "rd":
                acc = self.name("t")
                a = self.expr(sc, 1)
                self.line("double %s = %s;" % (acc, a[0]), "%s = _v(%s)" % (acc, a[1]))
                sc.scalars.append((acc, acc))
                sc.locals.append(acc)
            i = self.name("i")
            self.line("for (int %s = 0; %s < %s; %s++) {" % (i, i, m, i), "for %s in range(0, %s):" % (i, m))
            inner = Scope(sc)
            inner.loops.append((i, m))
            self.depth += 1
            self.line(None, "pass")
            a = self.expr(inner, r.randint(1, 3))
            if kind == "rd":
                self.line("%s += %s;" % (acc, a[0]), "%s = _v(%s + %s)" % (acc, acc, a[1]))
            else:
                t = "%s[%s]" % (v, i)
                self.line("%s = %s;" % (t, a[0]), "%s = _v(%s)" % (t, a[1]))
            for _ in range(r.randint(0, 1)):
                self.stmt(inner, 2)
            self.depth -= 1
            self.line("}", None)
        elif kind == "st":
            for f in r.sample("abc", r.randint(1, 3)):
                a = self.expr(sc, r.randint(1, 2))
                self.line("%s->%s = %s;" % (p, f, a[0]), "%s.%s = _v(%s)" % (p, f, a[1]))
        for _ in range(r.randint(0, 2)):
            self.stmt(sc, 1)
        if kind in ("sc", "rd", "sv", "cb"):
            a = self.expr(sc, r.randint(1, 3))
            self.line("return %s;" % a[0], "return _v(%s)" % a[1])
        elif kind in ("wp", "cbw"):
            a = self.expr(sc, r.randint(1, 3))
            if r.random() < 0.5:
                self.line("*%s = %s;" % (o, a[0]), "%s = _v(%s)" % (o, a[1]))
            else:
                self.line("*%s += %s;" % (o, a[0]), "%s = _v(%s + %s)" % (o, o, a[1]))
            self.line(None, "return %s" % o)
        elif kind == "ms":
            v = self.name("r")
            vals = [self.expr(sc, r.randint(1, 2)) for _ in range(3)]
            self.line("struct S %s = {%s};" % (v, ", ".join(a[0] for a in vals)),
                      "%s = _S(%s)" % (v, ", ".join(a[1] for a in vals)))
            if r.random() < 0.5:
                f = r.choice("abc")
                a = self.expr(sc, 2)
                self.line("%s.%s += %s;" % (v, f, a[0]), "%s.%s = _v(%s.%s + %s)" % (v, f, v, f, a[1]))
            self.line("return %s;" % v, "return %s" % v)
        self.depth -= 1
        self.line("}", None)
        self.line("", "")
        if kind in ("cb", "cbw"):
            self.fam.append(hname)
        else:
            self.helpers.append((kind, hname, params))

    def global_helpers(self, arrays):
        """global-shadow: static double G[K] (or a scalar static double G);
        a noinline writer fills it from its arguments (scalars, or an array
        of f and a scalar), a noinline reader returns a function of it.
        f calls the writer first, so G never carries values from one call of
        f into the next; f, the callbacks and the helpers taking them may
        read it too."""
        r = self.rng
        g = self.name("G")
        if r.random() < 0.3:  # a scalar; Python functions declare it global
            k = 0
            self.gscalar = g
            self.line("static double %s;" % g, "%s = 0.0" % g)
        else:
            k = r.randint(2, 4)
            self.line("static double %s[%d];" % (g, k), "%s = [0.0] * %d" % (g, k))
            self.garr = Arr(g, str(k), k, True)
        self.line("", "")
        ni = "__attribute__((noinline)) "
        # the writer
        self.callable_limit = len(self.helpers)
        hname, sc = self.name("h"), Scope()
        form = "array" if arrays and r.random() < 0.5 else "scalars"
        if form == "array":
            v, m, p = self.name("v"), self.name("m"), self.name("p")
            params = [v, m, p]
            self.line("static %svoid %s(const double *%s, int %s, double %s) {" % (ni, hname, v, m, p),
                      "def %s(%s, %s, %s):" % (hname, v, m, p))
            sc.arrays.append(Arr(v, m, 2, False))
            sc.scalars.append((p, p))
            sc.locals.append(p)
        else:
            params = [self.name("p") for _ in range(r.randint(1, 2))]
            self.line("static %svoid %s(%s) {" % (ni, hname, ", ".join("double " + p for p in params)),
                      "def %s(%s):" % (hname, ", ".join(params)))
            for p in params:
                sc.scalars.append((p, p))
                sc.locals.append(p)
        self.depth += 1
        self.line(None, "pass")
        # every element written from the arguments, before anything reads G
        src = list(sc.scalars)
        if form == "array":
            src += [("%s[%d]" % (sc.arrays[0].name, j),) * 2 for j in (0, 1)]
        op = r.choice(["+", "-", "*"])
        if not k:
            a, b = r.choice(src), self.expr(sc, r.randint(1, 2))
            self.line("%s = %s %s %s;" % (g, a[0], op, b[0]), "%s = _v(%s %s %s)" % (g, a[1], op, b[1]))
        elif r.random() < 0.5:
            i = self.name("i")
            inner = Scope(sc)
            inner.loops.append((i, str(k)))
            self.line("for (int %s = 0; %s < %d; %s++)" % (i, i, k, i), "for %s in range(0, %d):" % (i, k))
            a, b = r.choice(src), self.expr(inner, r.randint(1, 2))
            self.line("  %s[%s] = %s %s %s;" % (g, i, a[0], op, b[0]),
                      "  %s[%s] = _v(%s %s %s)" % (g, i, a[1], op, b[1]))
        else:
            for j in range(k):
                a, b = r.choice(src), self.expr(sc, r.randint(1, 2))
                self.line("%s[%d] = %s %s %s;" % (g, j, a[0], op, b[0]),
                          "%s[%d] = _v(%s %s %s)" % (g, j, a[1], op, b[1]))
        self.global_in_scope(sc, True)
        for _ in range(r.randint(0, 2)):
            self.stmt(sc, 1)
        self.depth -= 1
        self.line("}", None)
        self.line("", "")
        self.gwriter = (hname, form, params)
        # the reader: a loop over G, and G in the rest of its body
        self.callable_limit = len(self.helpers)
        hname, sc = self.name("h"), Scope()
        params = [self.name("p") for _ in range(r.randint(1, 2))]
        self.line("static %sdouble %s(%s) {" % (ni, hname, ", ".join("double " + p for p in params)),
                  "def %s(%s):" % (hname, ", ".join(params)))
        for p in params:
            sc.scalars.append((p, p))
            sc.locals.append(p)
        self.global_in_scope(sc, False)
        self.depth += 1
        self.line(None, "pass")
        acc = self.name("t")
        a = self.expr(sc, 1)
        self.line("double %s = %s;" % (acc, a[0]), "%s = _v(%s)" % (acc, a[1]))
        op = r.choice(["+", "*"])
        if not k:
            a = self.expr(sc, r.randint(1, 2))
            self.line("%s += %s %s %s;" % (acc, g, op, a[0]), "%s = _v(%s + %s %s %s)" % (acc, acc, g, op, a[1]))
        else:
            i = self.name("i")
            self.line("for (int %s = 0; %s < %d; %s++)" % (i, i, k, i), "for %s in range(0, %d):" % (i, k))
            inner = Scope(sc)
            inner.loops.append((i, str(k)))
            a = self.expr(inner, r.randint(1, 2))
            self.line("  %s += %s[%s] %s %s;" % (acc, g, i, op, a[0]),
                      "  %s = _v(%s + %s[%s] %s %s)" % (acc, acc, g, i, op, a[1]))
        sc.scalars.append((acc, acc))
        sc.locals.append(acc)
        for _ in range(r.randint(0, 1)):
            self.stmt(sc, 1)
        a = self.expr(sc, r.randint(1, 3))
        self.line("return %s + %s;" % (acc, a[0]), "return _v(%s + %s)" % (acc, a[1]))
        self.depth -= 1
        self.line("}", None)
        self.line("", "")
        self.helpers.append(("gr", hname, params))

    def global_in_scope(self, sc, writable):
        """G, readable (and writable), in scope sc."""
        if self.gscalar:
            sc.scalars.append((self.gscalar, self.gscalar))
            if writable:
                sc.locals.append(self.gscalar)
        elif self.garr:
            a = self.garr
            sc.arrays.append(a if writable else Arr(a.name, a.lensym, a.minlen, False))

    def gwrite_call(self, sc):
        """A call of the writer of G."""
        r = self.rng
        hname, form, params = self.gwriter
        if form == "array":
            arr = r.choice([a for a in sc.arrays if a.minlen >= 2 and not (self.garr and a.root == self.garr.name)])
            a = self.expr(sc, r.randint(1, 2))
            self.line("%s(%s, %s, %s);" % (hname, arr.name, arr.lensym, a[0]),
                      "%s(%s, %s, %s)" % (hname, arr.name, arr.lensym, a[1]))
        else:
            args = [self.expr(sc, r.randint(1, 2)) for _ in params]
            self.line("%s(%s);" % (hname, ", ".join(a[0] for a in args)),
                      "%s(%s)" % (hname, ", ".join(a[1] for a in args)))

    def fn_helpers(self):
        """fnptr: callbacks of one type; a static table of them (const or
        not), indexed by an int, and/or a parameter cb of f that main passes
        as enzyme_const; sometimes a helper taking the callback as an
        argument (an integrator-like loop)."""
        r = self.rng
        self.fnt = self.name("FnT")
        if r.random() < 0.3:  # callbacks writing through a pointer
            self.fam_kind = "wp"
            self.line("typedef void (*%s)(double *, double);" % self.fnt, None)
        else:
            self.fam_kind = "sc"
            self.arity = r.randint(1, 2)
            self.line("typedef double (*%s)(%s);" % (self.fnt, ", ".join(["double"] * self.arity)), None)
        self.line("", None)
        for _ in range(r.randint(2, 3)):
            self.helper("cb" if self.fam_kind == "sc" else "cbw")
        table, param = r.random() < 0.6, r.random() < 0.6
        if not (table or param):
            table = r.random() < 0.5
            param = not table
        if table:
            t = self.name("T")
            m = r.randint(2, 4)
            elems = [self.fam[j % len(self.fam)] for j in range(m)]
            r.shuffle(elems)
            const = "const " if r.random() < 0.5 else ""
            self.line("static %s %s%s[%d] = {%s};" % (self.fnt, const, t, m, ", ".join(elems)),
                      "%s = [%s]" % (t, ", ".join(elems)))
            self.line("", "")
            self.fns_top.append(("table", t, m))
        if param:
            self.cb = r.choice(self.fam)
            self.fns_top.append(("var", "cb"))
        if r.random() < 0.5:
            self.ap_helper()

    def ap_helper(self):
        """static double ap(FnT g, double p[, double q]): calls g, sometimes
        in a loop"""
        r = self.rng
        self.callable_limit = len(self.helpers)
        hname, g, sc = self.name("h"), self.name("g"), Scope()
        ps = [self.name("p") for _ in range(r.randint(1, 2))]
        ni = "__attribute__((noinline)) " if r.random() < 0.5 else ""
        self.line("static %sdouble %s(%s %s, %s) {" % (ni, hname, self.fnt, g, ", ".join("double " + p for p in ps)),
                  "def %s(%s, %s):" % (hname, g, ", ".join(ps)))
        for p in ps:
            sc.scalars.append((p, p))
            sc.locals.append(p)
        sc.fns.append(("var", g))
        if self.gwriter and "global-in-callback" not in self.avoid and r.random() < 0.5:
            self.global_in_scope(sc, False)
        self.depth += 1
        self.line(None, "pass")
        acc = self.name("t")
        if self.fam_kind == "wp":  # g(&acc, ...), sometimes in a loop
            a = self.expr(sc, 1)
            self.line("double %s = %s;" % (acc, a[0]), "%s = _v(%s)" % (acc, a[1]))
            inner = Scope(sc)
            if r.random() < 0.5:
                i, k = self.name("i"), r.randint(2, 4)
                self.line("for (int %s = 0; %s < %d; %s++) {" % (i, i, k, i), "for %s in range(0, %d):" % (i, k))
                inner.loops.append((i, str(k)))
                self.depth += 1
            a = self.expr(inner, r.randint(1, 2))
            self.line("%s(&%s, %s);" % (g, acc, a[0]), "%s = %s(%s, %s)" % (acc, g, acc, a[1]))
            if inner.loops:
                self.depth -= 1
                self.line("}", None)
        elif r.random() < 0.5:  # an integrator
            i, k = self.name("i"), r.randint(2, 5)
            self.line("double %s = 0.0;" % acc, "%s = 0.0" % acc)
            self.line("for (int %s = 0; %s < %d; %s++)" % (i, i, k, i), "for %s in range(0, %d):" % (i, k))
            inner = Scope(sc)
            inner.loops.append((i, str(k)))
            a = self.fcall_expr(inner, r.randint(1, 2))
            self.line("  %s += %s;" % (acc, a[0]), "  %s = _v(%s + %s)" % (acc, acc, a[1]))
        else:
            a = self.fcall_expr(sc, r.randint(1, 2))
            self.line("double %s = %s;" % (acc, a[0]), "%s = _v(%s)" % (acc, a[1]))
        sc.scalars.append((acc, acc))
        sc.locals.append(acc)
        for _ in range(r.randint(0, 1)):
            self.stmt(sc, 1)
        a = self.expr(sc, r.randint(1, 2))
        self.line("return %s + %s;" % (acc, a[0]), "return _v(%s + %s)" % (acc, a[1]))
        self.depth -= 1
        self.line("}", None)
        self.line("", "")
        self.helpers.append(("ap", hname, [g] + ps))

    def program(self):
        r = self.rng
        shape = self.pick([("array", 3), ("scalar", 3), ("mixed", 3)])
        ns = 0 if shape == "array" else r.randint(1, 4)
        nx = 0 if shape == "scalar" else r.randint(2, 5)
        ny = r.randint(2, 4) if nx and r.random() < 0.6 else 0
        for _ in range(r.randint(0, 3)):
            self.helper(self.pick([("sc", 4), ("rd", 2), ("wr", 1.5), ("st", 1.5), ("sv", 1), ("ms", 1), ("rec", 1),
                                   ("wp", 1.5)]))
        if "global-shadow" in self.features:
            self.global_helpers(nx > 0)
            # x const in forward mode beside G's shadow would be a pointer
            # with and without a shadow meeting (fuzz-regress-3)
            self.f_memory = True
        if "fnptr" in self.features:
            self.fn_helpers()
        self.callable_limit = len(self.helpers)
        self.in_f = True
        self.has_n = nx > 0
        sc = Scope()
        sc.fns = list(self.fns_top)
        cparams, pparams = [], []
        for j in range(ns):
            cparams.append("double a%d" % j)
            pparams.append("a%d" % j)
            sc.scalars.append(("a%d" % j, "a%d" % j))
            sc.locals.append("a%d" % j)
        if nx:
            cparams.append("double *x")
            pparams.append("x")
            sc.arrays.append(Arr("x", "n", nx, False))
        if ny:
            cparams.append("double *y")
            pparams.append("y")
            sc.arrays.append(Arr("y", str(ny), ny, True))
        if nx:
            cparams.append("int n")
            pparams.append("n")
        if self.cb:
            cparams.append("%s cb" % self.fnt)
            pparams.append("cb")
        self.line("double f(%s) {" % ", ".join(cparams), "def f(%s):" % ", ".join(pparams))
        self.depth += 1
        self.line(None, "pass")
        if self.gwriter:  # G is written before anything reads it
            self.gwrite_call(sc)
            self.g_ready = True
            if r.random() < 0.6:
                self.global_in_scope(sc, True)
        for _ in range(r.randint(2, 6 * self.size)):
            self.stmt(sc, 0)
        self.used.clear()  # calls made while generating helpers do not count
        for _ in range(r.randint(1, 3)):
            self.stmt(sc, 0)
        # every helper is called at least once from f
        for h in self.helpers:
            if h[1] in self.used:
                continue
            kind = h[0]
            if kind in ("wr", "rd") and not any(a.writable for a in sc.arrays):
                self.stmt(sc, 0, force="localarr")
            if kind in ("st", "sv") and not sc.structs:
                self.stmt(sc, 0, force="struct")
            if kind == "wr":
                self.stmt(sc, 0, force="callwr", helper=h)
            elif kind == "st":
                self.stmt(sc, 0, force="callst", helper=h)
            elif kind == "wp":
                if not sc.locals:
                    self.stmt(sc, 0, force="decl")
                self.stmt(sc, 0, force="callwp", helper=h)
            else:
                v = self.name("t")
                a = self.call_expr(sc, h, r.randint(1, 2))
                self.line("double %s = %s;" % (v, a[0]), "%s = _v(%s)" % (v, a[1]))
                sc.scalars.append((v, v))
                sc.locals.append(v)
        # every function pointer f has is called through at least once
        for entry in self.fns_top:
            if entry[1] not in self.fns_used:
                self.fn_use(sc, entry)
        self.ret(sc)
        self.depth -= 1
        self.line("}", None)
        return self.finish(ns, nx, ny)

    def ret(self, sc):
        """return: an expression, the latest locals, every local array, struct and y"""
        r = self.rng
        terms = [self.expr(sc, r.randint(1, 3))]
        locs = [(v, v) for v in sc.locals if not re.fullmatch(r"a\d+", v)]
        terms += locs[-4:]
        for a in sc.arrays:
            if a.writable:
                e = "%s[%d]" % (a.name, r.randrange(a.minlen))
                terms.append((e, e))
        for cp, pp in sc.structs:
            f = r.choice("abc")
            terms.append((cp + f, pp + f))
        self.line("return %s;" % " + ".join(t[0] for t in terms),
                  "return _v(%s)" % " + ".join(t[1] for t in terms))

    def finish(self, ns, nx, ny):
        r = self.rng
        inputs = [round(r.uniform(-1.5, 1.5), 3) for _ in range(ns)]
        inputs += [round(r.uniform(-2.0, 2.0), 3) for _ in range(nx)]
        inputs += [round(r.uniform(-1.0, 1.0), 3) for _ in range(ny)]
        names = ["a%d" % j for j in range(ns)] + ["x[%d]" % i for i in range(nx)] + ["y[%d]" % i for i in range(ny)]
        opts = {
            "rev_scalar_marker": r.random() < 0.8,
            "ptr_marker": r.random() < 0.8,
            "int_marker": r.random() < 0.7,
            "fwd_const_scalars": r.random() < 0.5,
            # x const in forward mode only where f has no other memory with a
            # shadow: a pointer that may point to either is a clean
            # diagnostic (Enzyme's "mismatched activity"), not a test.
            "fwd_const_x": r.random() < 0.5 and not ny and not self.f_memory,
        }
        py = []
        for ln in self.py:
            py.append(ln)
            if self.gscalar and ln.startswith("def "):
                py.append("  global %s" % self.gscalar)
        return Program(ns, nx, ny, inputs, names, "\n".join(self.c), "\n".join(py), opts, self.cb,
                       self.features)


class Program:
    def __init__(self, ns, nx, ny, inputs, names, c_body, py_body, opts, cb=None, features=()):
        self.ns, self.nx, self.ny = ns, nx, ny
        self.inputs, self.names = inputs, names
        self.c_body, self.py_body, self.opts = c_body, py_body, opts
        self.cb = cb  # the callback main passes as f's last argument
        self.features = features
        self.expect = None

    # -- Python evaluation --
    def evaluator(self):
        ns, state = make_runtime()
        exec(compile(self.py_body, "<candidate>", "exec"), ns)
        f = ns["f"]
        nsc, nx, ny = self.ns, self.nx, self.ny

        def run(inp):
            state["tr"] = Tracer()
            args = list(inp[:nsc])
            if nx:
                args.append(list(inp[nsc:nsc + nx]))
            if ny:
                args.append(list(inp[nsc + nx:]))
            if nx:
                args.append(nx)
            if self.cb:
                args.append(ns[self.cb])
            v = f(*args)
            return v, state["tr"]

        return run

    def validate(self):
        run = self.evaluator()
        try:
            base = list(self.inputs)
            v0, tr0 = run(base)
            if tr0.margin < BASE_MARGIN:
                raise Reject("margin")
            for c in range(len(base)):
                x = base[c]
                h = math.cbrt(EPS) * max(abs(x), 1.0)
                h = (x + h) - x
                vals = {}
                for s in (h, -h, 2 * h, -2 * h):
                    p = list(base)
                    p[c] = x + s
                    val, tr = run(p)
                    if tr.trace != tr0.trace or tr.margin < POINT_MARGIN:
                        raise Reject("path")
                    vals[s] = val
                fd1 = (vals[h] - vals[-h]) / (2 * h)
                fd2 = (vals[2 * h] - vals[-2 * h]) / (4 * h)
                if abs(fd1 - fd2) > FD_STABILITY * max(abs(fd1), 1.0):
                    raise Reject("fd")
        except (ValueError, OverflowError, ZeroDivisionError, RecursionError):
            raise Reject("python")
        self.expect = v0

    # -- C --
    def args(self, mode, direction=None):
        """The argument list of an __enzyme_autodiff/__enzyme_fwddiff call
        after the function, in main's variables."""
        o = self.opts
        out = []
        for j in range(self.ns):
            if mode == "rev":
                out += (["enzyme_out"] if o["rev_scalar_marker"] else []) + ["IN0[%d]" % j]
            elif direction == j or not o["fwd_const_scalars"]:
                out += ["enzyme_dup", "IN0[%d]" % j, "1.0" if direction == j else "0.0"]
            else:
                out += ["enzyme_const", "IN0[%d]" % j]
        pm = ["enzyme_dup"] if o["ptr_marker"] else []
        if self.nx:
            if mode == "fwd" and o["fwd_const_x"] and direction != "x":
                out += ["enzyme_const", "x"]
            else:
                out += pm + ["x", "dx"]
        if self.ny:
            out += pm + ["y", "dy"]
        if self.nx:
            out += (["enzyme_const"] if o["int_marker"] else []) + ["NX"]
        if self.cb:
            out += ["enzyme_const", self.cb]
        return ", ".join(out)

    def c_source(self, how):
        ns, nx, ny = self.ns, self.nx, self.ny
        nin = ns + nx + ny
        L = []
        L.append("/* Generated by tools/fuzz-numeric.py %s: reverse mode, forward" % how)
        L.append("   mode and central differences of f must agree. */")
        if self.features:
            L.append("/* Features: %s. */" % ", ".join(self.features))
        L.append("#include <float.h>")
        L.append("#include <kinase.h>")
        L.append("#include <math.h>")
        L.append("#include <stdio.h>")
        L.append("#include <string.h>")
        L.append("")
        L.append("struct S { double a, b, c; };")
        if ns >= 2:
            L.append("typedef struct { double %s; } grad_t;" % ", ".join("d%d" % j for j in range(ns)))
            L.append("extern grad_t __enzyme_autodiff_grad(void *, ...);")
        L.append("")
        L.append(self.c_body)
        L.append("")
        L.append("#define NS %d" % ns)
        L.append("#define NX %d" % nx)
        L.append("#define NY %d" % ny)
        L.append("#define NIN %d" % nin)
        L.append("static const double IN0[NIN] = {%s};" % ", ".join(repr(v) for v in self.inputs))
        L.append("static const char *const NAME[NIN] = {%s};" % ", ".join('"%s"' % s for s in self.names))
        L.append("static const double EXPECT = %r;" % self.expect)
        L.append("static int failures;")
        L.append("")
        # Local arrays of the main-side calls.
        decl = []
        if nx:
            decl.append("double x[NX], dx[NX] = {0};")
            decl.append("memcpy(x, IN0 + NS, sizeof x);")
        if ny:
            decl.append("double y[NY], dy[NY] = {0};")
            decl.append("memcpy(y, IN0 + NS + NX, sizeof y);")
        fargs = ["in[%d]" % j for j in range(ns)] + (["x"] if nx else []) + (["y"] if ny else []) + (["NX"] if nx else [])
        fargs += [self.cb] if self.cb else []
        L.append("/* f at the inputs in[]; y (if any) is left in yout. */")
        L.append("static double call_f(const double *in, double *yout) {")
        if nx:
            L.append("  double x[NX];")
            L.append("  memcpy(x, in + NS, sizeof x);")
        if ny:
            L.append("  double y[NY];")
            L.append("  memcpy(y, in + NS + NX, sizeof y);")
        L.append("  double r = f(%s);" % ", ".join(fargs))
        if ny:
            L.append("  if (yout) memcpy(yout, y, sizeof y);")
        else:
            L.append("  (void)yout;")
        L.append("  return r;")
        L.append("}")
        L.append("")
        L.append("static void reverse(double *g, double *yout) {")
        for d in decl:
            L.append("  " + d)
        a = self.args("rev")
        if ns >= 2:
            L.append("  grad_t r = __enzyme_autodiff_grad((void *)f, %s);" % a)
            for j in range(ns):
                L.append("  g[%d] = r.d%d;" % (j, j))
        elif ns == 1:
            L.append("  g[0] = __enzyme_autodiff((void *)f, %s);" % a)
        else:
            L.append("  __enzyme_autodiff((void *)f, %s);" % a)
        if nx:
            L.append("  for (int i = 0; i < NX; i++) g[NS + i] = dx[i];")
        if ny:
            L.append("  for (int i = 0; i < NY; i++) g[NS + NX + i] = dy[i];")
            L.append("  memcpy(yout, y, sizeof y);")
        else:
            L.append("  (void)yout;")
        L.append("}")
        L.append("")
        L.append("static void forward(double *t, double *yout) {")
        L.append("  (void)yout;")
        for j in range(ns):
            L.append("  {")
            for d in decl:
                L.append("    " + d)
            L.append("    t[%d] = __enzyme_fwddiff((void *)f, %s);" % (j, self.args("fwd", j)))
            if ny:
                L.append("    memcpy(yout, y, sizeof y);")
            L.append("  }")
        if nx:
            L.append("  for (int k = 0; k < NX; k++) {")
            for d in decl:
                L.append("    " + d)
            L.append("    dx[k] = 1.0;")
            L.append("    t[NS + k] = __enzyme_fwddiff((void *)f, %s);" % self.args("fwd", "x"))
            if ny:
                L.append("    memcpy(yout, y, sizeof y);")
            L.append("  }")
        if ny:
            L.append("  for (int k = 0; k < NY; k++) {")
            for d in decl:
                L.append("    " + d)
            L.append("    dy[k] = 1.0;")
            L.append("    t[NS + NX + k] = __enzyme_fwddiff((void *)f, %s);" % self.args("fwd", "y"))
            L.append("    memcpy(yout, y, sizeof y);")
            L.append("  }")
        L.append("}")
        L.append("")
        L.append(r"""static double central(int c) {
  double p[NIN];
  memcpy(p, IN0, sizeof p);
  double v = p[c], h = cbrt(DBL_EPSILON) * fmax(fabs(v), 1.0);
  volatile double vh = v + h;
  h = vh - v;
  p[c] = v + h;
  double fp = call_f(p, 0);
  p[c] = v - h;
  double fm = call_f(p, 0);
  return (fp - fm) / (2 * h);
}

static int close_to(double a, double b, double rtol, double atol) {
  return fabs(a - b) <= rtol * fmax(fabs(a), fabs(b)) + atol;
}

int main(void) {
  double rev[NIN > 0 ? NIN : 1], fwd[NIN > 0 ? NIN : 1], fd[NIN > 0 ? NIN : 1];
  double yf[NY + 1], yr[NY + 1], yt[NY + 1];
  double v = call_f(IN0, yf);
  if (!close_to(v, EXPECT, 1e-9, 1e-9)) {
    printf("FAIL primal: got %.17g want %.17g\n", v, EXPECT);
    failures++;
  }
  reverse(rev, yr);
  forward(fwd, yt);
  for (int i = 0; i < NY; i++) {
    if (!close_to(yr[i], yf[i], 1e-12, 1e-12)) {
      printf("FAIL y[%d] after reverse: got %.17g want %.17g\n", i, yr[i], yf[i]);
      failures++;
    }
    if (!close_to(yt[i], yf[i], 1e-12, 1e-12)) {
      printf("FAIL y[%d] after forward: got %.17g want %.17g\n", i, yt[i], yf[i]);
      failures++;
    }
  }
  for (int c = 0; c < NIN; c++) {
    fd[c] = central(c);
    if (!close_to(rev[c], fwd[c], REV_FWD_RTOL, REV_FWD_RTOL)) {
      printf("FAIL rev-vs-fwd d/d%s: rev %.17g fwd %.17g fd %.17g\n", NAME[c], rev[c], fwd[c], fd[c]);
      failures++;
    }
    if (!(fabs(rev[c] - fd[c]) <= FD_RTOL * fabs(fd[c]) + FD_ATOL)) {
      printf("FAIL rev-vs-fd d/d%s: rev %.17g fwd %.17g fd %.17g\n", NAME[c], rev[c], fwd[c], fd[c]);
      failures++;
    }
  }
  if (failures) {
    printf("FAILED %d checks\n", failures);
    return 1;
  }
  printf("PASS (%d inputs)\n", NIN);
  return 0;
}""".replace("REV_FWD_RTOL", repr(REV_FWD_RTOL)).replace("FD_RTOL", repr(FD_RTOL)).replace("FD_ATOL", repr(FD_ATOL)))
        return "\n".join(L) + "\n"


# Program features drawn per program, each with this probability, from a
# random stream of their own: a program drawn without any is the one the
# generator made before they existed.
FEATURES = {
    "global-shadow": "a file-scope static double array or scalar written by one noinline helper from f's "
                     "values and read by another (and by f and the callbacks)",
    "fnptr": "calls through function pointers: a static table indexed by an int, a callback parameter "
             "passed as enzyme_const, a helper taking the callback, a callee chosen by data",
}
FEATURE_P = 0.2

AVOIDABLE = {
    "byval-write": "a helper taking a struct by value writes a copy instead of its parameter",
    "global-in-callback": "callbacks and the helpers taking them do not read the global",
}
AVOIDABLE.update(("no-" + k, "no program with feature " + k) for k in FEATURES)


def features(seed, index, avoid=(), force=()):
    """The features of program (seed, index)."""
    rng = random.Random("kinase-numeric-fuzz-features:%s:%d" % (seed, index))
    draws = {k: rng.random() for k in FEATURES}
    return tuple(k for k in FEATURES if "no-" + k not in avoid and (k in force or draws[k] < FEATURE_P))


def show_command(seed, index, avoid=(), size=1, force=()):
    """The options that print the program of (seed, index) again."""
    return "--seed %s --show %d%s%s%s" % (seed, index, "".join(" --avoid " + a for a in avoid),
                                           " --size %d" % size if size != 1 else "",
                                           "".join(" --force " + k for k in force))


def generate(seed, index, avoid=(), size=1, force=()):
    """The program of (seed, index) and how many candidates were dropped."""
    rng = random.Random("kinase-numeric-fuzz:%s:%d" % (seed, index))
    feats = features(seed, index, avoid, force)
    for attempt in range(1000):
        prog = Gen(rng, avoid, size, feats).program()
        try:
            prog.validate()
        except Reject:
            continue
        return prog.c_source(show_command(seed, index, avoid, size, force)), attempt
    raise RuntimeError("no valid candidate for seed %s index %d" % (seed, index))


# ---------------------------------------------------------------------------
# Compiling, running, classifying.

CRASH_RE = re.compile(r"Stack dump|PLEASE submit a bug report|internal error|Assertion .* failed|"
                      r"UNREACHABLE|LLVM ERROR|Broken module|Segmentation fault|Aborted")
SEVERITY = {"agree": 0, "compile": 1, "disagree": 2, "runtime-crash": 3, "compiler-crash": 3, "timeout": 3}


def run_cmd(cmd, timeout):
    """subprocess.run with a timeout that ends the command's whole process
    group (kinase-cc runs clang as a child)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, 9)
        except ProcessLookupError:
            pass
        p.communicate()
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def diag_messages(err):
    msgs = []
    for ln in err.splitlines():
        if "error:" in ln:
            ln = re.sub(r"^\S*:\d+:\d+: ", "", ln.strip())
            msgs.append(ln)
    return msgs or ["(no message, exit status only)"]


def check_one(cc, seed, index, ctimeout, rtimeout, keep, avoid, size, force):
    src, rejected = generate(seed, index, avoid, size, force)
    res = {"index": index, "status": "agree", "detail": "", "messages": [], "rejected": rejected, "levels": {},
           "features": features(seed, index, avoid, force)}
    work = tempfile.mkdtemp(prefix="kinase-numfuzz-")
    log = []
    try:
        path = os.path.join(work, "prog.c")
        with open(path, "w") as fh:
            fh.write(src)
        for level in ("-O0", "-O2"):
            exe = os.path.join(work, "prog" + level)
            cmd = [cc, level, path, "-o", exe, "-lm"]
            status, detail = "agree", ""
            try:
                p = run_cmd(cmd, ctimeout)
                log.append("$ %s\n[exit %d]\n%s" % (" ".join(cmd), p.returncode, p.stderr))
                if p.returncode != 0:
                    if p.returncode < 0 or CRASH_RE.search(p.stderr):
                        status = "compiler-crash"
                        detail = next((ln for ln in p.stderr.splitlines() if CRASH_RE.search(ln)),
                                      "signal %d" % -p.returncode)
                    else:
                        status = "compile"
                        res["messages"] += diag_messages(p.stderr)
                        detail = res["messages"][0]
            except subprocess.TimeoutExpired:
                status, detail = "timeout", "compile ran past %d s" % ctimeout
                log.append("$ %s\n[timeout]" % " ".join(cmd))
            if status == "agree":
                try:
                    p = run_cmd([exe], rtimeout)
                    log.append("$ %s\n[exit %d]\n%s%s" % (exe, p.returncode, p.stdout, p.stderr))
                    fails = [ln for ln in p.stdout.splitlines() if ln.startswith("FAIL")]
                    if p.returncode == 0 and "PASS" in p.stdout:
                        pass
                    elif p.returncode == 1 and fails:
                        status, detail = "disagree", fails[0]
                    else:
                        status = "runtime-crash"
                        detail = "exit %d" % p.returncode if p.returncode > 0 else "signal %d" % -p.returncode
                except subprocess.TimeoutExpired:
                    status, detail = "timeout", "run past %d s" % rtimeout
                    log.append("$ %s\n[timeout]" % exe)
            res["levels"][level] = status
            if SEVERITY[status] > SEVERITY[res["status"]]:
                res["status"], res["detail"] = status, "%s: %s" % (level, detail)
        if res["status"] != "agree" and keep:
            os.makedirs(keep, exist_ok=True)
            base = os.path.join(keep, "numeric-%s-%d" % (seed, index))
            with open(base + ".c", "w") as fh:
                fh.write(src)
            with open(base + ".log", "w") as fh:
                fh.write("\n".join(log) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", default="1", help="seed of the run (programs are deterministic per seed and index)")
    ap.add_argument("--count", type=int, default=100, help="number of programs")
    ap.add_argument("--first", type=int, default=0, help="index of the first program")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="programs checked at once (default: cores)")
    ap.add_argument("--keep-failures", metavar="DIR", help="write the source and log of each failing program here")
    ap.add_argument("--cc", default=os.environ.get("KINASE_CC") or os.path.join(REPO, "build", "bin", "kinase-cc"),
                    help="kinase-cc to test (default: $KINASE_CC, else build/bin/kinase-cc)")
    ap.add_argument("--compile-timeout", type=int, default=120, metavar="S", help="seconds per compile (120)")
    ap.add_argument("--run-timeout", type=int, default=20, metavar="S", help="seconds per run (20)")
    ap.add_argument("--avoid", action="append", default=[], choices=sorted(AVOIDABLE),
                    help="steer clear of a known bug, to find others: "
                    + "; ".join("%s: %s" % kv for kv in sorted(AVOIDABLE.items())))
    ap.add_argument("--size", type=int, default=1, choices=[1, 2, 3],
                    help="program size: deeper nesting and more statements (default 1)")
    ap.add_argument("--force", action="append", default=[], choices=sorted(FEATURES),
                    help="give every program this feature (otherwise each gets it with probability %g): "
                    % FEATURE_P + "; ".join("%s: %s" % kv for kv in sorted(FEATURES.items())))
    ap.add_argument("--show", type=int, metavar="INDEX", help="print the C source of one program and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per program")
    args = ap.parse_args()

    if args.show is not None:
        sys.stdout.write(generate(args.seed, args.show, args.avoid, args.size, args.force)[0])
        return 0
    if not os.access(args.cc, os.X_OK):
        print("fuzz-numeric: compiler %s not found (--cc or KINASE_CC)" % args.cc, file=sys.stderr)
        return 2

    start = time.time()
    indices = range(args.first, args.first + args.count)
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = [pool.submit(check_one, args.cc, args.seed, i, args.compile_timeout, args.run_timeout,
                            args.keep_failures, args.avoid, args.size, args.force) for i in indices]
        for fut in futs:
            r = fut.result()
            results.append(r)
            if args.verbose:
                print("%-14s %d%s %s" % (r["status"], r["index"],
                                         " [%s]" % ", ".join(r["features"]) if r["features"] else "", r["detail"]),
                      flush=True)

    count = collections.Counter(r["status"] for r in results)
    bad = [r for r in results if r["status"] != "agree"]
    for r in bad[:40]:
        print("FAIL %s: seed %s program %d (tools/fuzz-numeric.py %s): %s"
              % (r["status"], args.seed, r["index"], show_command(args.seed, r["index"], args.avoid, args.size, args.force),
                 r["detail"]))
    if len(bad) > 40:
        print("... and %d more" % (len(bad) - 40))
    msgs = collections.Counter(m for r in results for m in r["messages"])
    if msgs:
        print("compile failure messages:")
        for m, k in msgs.most_common(20):
            print("  %5d  %s" % (k, m))
    for k in FEATURES:
        with_k = [r for r in results if k in r["features"]]
        if with_k:
            print("feature %s: %d programs, %d agree" % (k, len(with_k), sum(r["status"] == "agree" for r in with_k)))
    crashes = count["compiler-crash"] + count["runtime-crash"] + count["timeout"]
    rejected = sum(r["rejected"] for r in results)
    print("details: %d compiler crashes, %d runtime crashes, %d timeouts; %d candidate programs dropped "
          "by the generator; %.0f s with %d jobs"
          % (count["compiler-crash"], count["runtime-crash"], count["timeout"], rejected,
             time.time() - start, args.jobs))
    print("numeric fuzzing: %d programs, %d agree, %d disagree, %d compile failures, %d crashes"
          % (len(results), count["agree"], count["disagree"], count["compile"], crashes))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
