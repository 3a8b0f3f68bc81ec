"""torch-compile's server over more shapes than dynamo keeps compiled code for: it starts afresh
before dynamo's limits, so no product fails with CacheLimitExceeded (a campaign of torch-compile
had every check an error after its 250th). Here with limits of 3 and 6 in place of 2048 and 4096,
over 12 shapes; then over 12 more with its own limit out of reach, as where dynamo counts what the
server does not: dynamo refuses first, and the server starts afresh then.
Prints the products computed and the starts afresh of each part.
Usage: python compile_limit.py scripts/bridge/frameworks/torch.py"""
import importlib.util
import sys

import numpy as np

spec = importlib.util.spec_from_file_location("torch_framework", sys.argv[1])
framework = importlib.util.module_from_spec(spec)
spec.loader.exec_module(framework)
torch = framework.torch
framework.COMPILED_MAX = 3
torch._dynamo.config.cache_size_limit = torch._dynamo.config.accumulated_cache_size_limit = 6


def products(threads):
    """12 products of new shapes: how many were computed, and how often the server started afresh."""
    resets, done = 0, 0
    for n in range(1, 13):
        before = len(framework._specialized)
        a, b = np.ones((1, 2, 3), np.float32), np.ones((1, 3, n), np.float32)
        out = framework.matmul(a, b, None, "gemm", "compiled", ["f32", "f32", "f32"], threads)
        assert np.array_equal(out, np.full((1, 2, n), 3.0, np.float32)), out
        resets += len(framework._specialized) < before
        done += 1
    return done, resets


print("%d products, %d starts afresh" % products(1))
framework.COMPILED_MAX = 100
framework.start_afresh()
print("then %d products, %d starts afresh when dynamo refused" % products(2))
