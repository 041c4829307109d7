#!/usr/bin/env python3
"""The seed workload in JAX and PyTorch, beside Kinase (bench/cuda-host-loglik.cu).

Per-sample gradients of the batched Gaussian log-likelihood, the same sizes
and inputs as the CUDA benchmark: JAX `jit(vmap(grad))`, PyTorch eager and
`torch.compile` (the gradient of sum(logL) with respect to the batch of
parameter vectors: sample i's log-likelihood depends on its own vector only).
Median of 15 timed runs after warm-up, synchronised, in milliseconds; each
gradient is checked against the analytic one.

    bench/jax-torch-loglik.py [cuda-host-loglik output] [--plot out.png]

Given the CUDA benchmark's output, prints one table of all of them and, with
--plot, draws it (matplotlib). Runs on the GPU machine: this one has neither
JAX nor PyTorch.
"""
import math
import re
import statistics
import sys
import time

SIZES = [(1 << 20, 1000), (1 << 24, 16), (1 << 16, 100000)]
REPEAT = 15


def inputs(np, b, n):
    k = np.arange(n, dtype=np.float32)
    x = np.stack([np.sin(0.37 * k), 0.5 * np.cos(0.11 * k) - 0.2], axis=1).astype(np.float32)
    i = np.arange(b)
    th = np.stack([0.1 * (i % 7) - 0.3, 0.05 * (i % 5), 0.8 + 0.01 * (i % 13),
                   1.1 - 0.02 * (i % 11)], axis=1).astype(np.float32)
    return th, x


def analytic(np, th, x):
    """d/dmu = sum e / s^2, d/ds = sum e^2 / s^3 - n / s, in float64."""
    th, x = th.astype(np.float64), x.astype(np.float64)
    n = x.shape[0]
    s1, s2 = th[:, 2], th[:, 3]
    sx, sy = x[:, 0].sum(), x[:, 1].sum()
    qx, qy = (x[:, 0] ** 2).sum(), (x[:, 1] ** 2).sum()
    a1 = sx - n * th[:, 0]
    a2 = sy - n * th[:, 1]
    c1 = qx - 2 * th[:, 0] * sx + n * th[:, 0] ** 2
    c2 = qy - 2 * th[:, 1] * sy + n * th[:, 1] ** 2
    return np.stack([a1 / s1**2, a2 / s2**2, c1 / s1**3 - n / s1, c2 / s2**3 - n / s2], axis=1)


def relative_error(np, got, want):
    return float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))))


def median_ms(run, sync):
    run()
    sync()
    times = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        run()
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def jax_rows(np):
    import jax
    import jax.numpy as jnp

    def loglik_one(th, x):
        d1 = (x[:, 0] - th[0]) / th[2]
        d2 = (x[:, 1] - th[1]) / th[3]
        n = x.shape[0]
        return (-0.5 * jnp.sum(d1 * d1 + d2 * d2) - n * (jnp.log(th[2]) + jnp.log(th[3]))
                - n * math.log(2 * math.pi))

    gradients = jax.jit(jax.vmap(jax.grad(loglik_one), in_axes=(0, None)))
    for b, n in SIZES:
        th, x = inputs(np, b, n)
        th_d, x_d = jax.device_put(th), jax.device_put(x)
        out = {}

        def run():
            out["g"] = gradients(th_d, x_d)

        ms = median_ms(run, lambda: out["g"].block_until_ready())
        err = relative_error(np, np.asarray(out["g"]), analytic(np, th, x))
        yield ("JAX jit(vmap(grad))", b, n, ms, err)


def torch_rows(np):
    import torch

    def loglik(th, x):
        d1 = (x[:, 0][None, :] - th[:, 0:1]) / th[:, 2:3]
        d2 = (x[:, 1][None, :] - th[:, 1:2]) / th[:, 3:4]
        n = x.shape[0]
        return (-0.5 * (d1 * d1 + d2 * d2).sum(dim=1) - n * (torch.log(th[:, 2]) + torch.log(th[:, 3]))
                - n * math.log(2 * math.pi))

    def gradient(fn, th, x):
        th = th.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(fn(th, x).sum(), th)
        return g

    compiled = torch.compile(loglik)
    for name, fn in (("PyTorch eager", loglik), ("PyTorch torch.compile", compiled)):
        for b, n in SIZES:
            th, x = inputs(np, b, n)
            th_d, x_d = torch.from_numpy(th).cuda(), torch.from_numpy(x).cuda()
            out = {}

            def run():
                out["g"] = gradient(fn, th_d, x_d)

            try:
                ms = median_ms(run, torch.cuda.synchronize)
            except torch.cuda.OutOfMemoryError:
                yield (name, b, n, None, None)
                out.clear()
                torch.cuda.empty_cache()
                continue
            err = relative_error(np, out["g"].cpu().numpy(), analytic(np, th, x))
            out.clear()
            torch.cuda.empty_cache()
            yield (name, b, n, ms, err)


def kinase_rows(path):
    """Rows of bench/cuda-host-loglik's output: hand, Kinase host-level, device-side."""
    size = None
    for line in open(path):
        m = re.search(r"B=(\d+)\s+N=(\d+)\s+primal\s+([\d.]+) ms\s+hand\s+([\d.]+) ms\s+"
                      r"kinase host-level\s+([\d.]+) ms", line)
        if m:
            b, n = int(m.group(1)), int(m.group(2))
            size = (b, n)
            yield ("hand-written gradient (clang)", b, n, float(m.group(4)), None)
            yield ("Kinase, host-level request", b, n, float(m.group(5)), None)
        m = re.search(r"device-side request\s+([\d.]+) ms", line)
        if m and size:
            yield ("Kinase, device-side request", size[0], size[1], float(m.group(1)), None)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r[0] for r in rows))
    fig, ax = plt.subplots(figsize=(10, 5))
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        xs, ys = [], []
        for s, (b, n) in enumerate(SIZES):
            for r in rows:
                if r[0] == name and (r[1], r[2]) == (b, n) and r[3]:
                    xs.append(s + k * width)
                    ys.append(r[3])
        ax.bar(xs, ys, width, label=name)
    ax.set_xticks([s + 0.4 - width / 2 for s in range(len(SIZES))])
    ax.set_xticklabels([f"B=2^{int(math.log2(b))}, N={n}" for b, n in SIZES])
    ax.set_yscale("log")
    ax.set_ylabel("ms (median, H200)")
    ax.set_title("Per-sample gradients of a batched log-likelihood")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv):
    import numpy as np

    plot_path = None
    if "--plot" in argv:
        k = argv.index("--plot")
        plot_path = argv[k + 1]
        argv = argv[:k] + argv[k + 2:]
    rows = list(kinase_rows(argv[0])) if argv else []
    for source in (jax_rows, torch_rows):
        try:
            for row in source(np):
                rows.append(row)
                print(row, flush=True)
        except ImportError as e:
            print(f"skipped {source.__name__}: {e}", flush=True)
    print(f"| {'':32} | " + " | ".join(f"B=2^{int(math.log2(b))}, N={n}" for b, n in SIZES) + " |")
    print("| --- |" + " --- |" * len(SIZES))
    for name in dict.fromkeys(r[0] for r in rows):
        cells = []
        for b, n in SIZES:
            found = [r for r in rows if r[0] == name and (r[1], r[2]) == (b, n)]
            ms = found[0][3] if found else None
            cells.append("out of memory" if found and ms is None else f"{ms:.3f} ms" if ms else "-")
        print(f"| {name:32} | " + " | ".join(cells) + " |")
    if plot_path:
        try:
            plot(rows, plot_path)
        except ImportError as e:
            print(f"no plot: {e}")
    errors = [r[4] for r in rows if r[4] is not None]
    return 0 if all(e < 1e-3 for e in errors) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
