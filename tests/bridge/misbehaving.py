"""Frameworks for the bridge's tests that misbehave as $MISBEHAVE says, on a product with k = 7:
"crash" (the server dies of a signal), "hang" (it never answers), "garbage" (it writes a line
that is no JSON where its answer goes), "shape" (it returns the wrong shape: its own error); or
"slow": every product takes 0.4 s. Every product is otherwise seq's f64 (sequential.py)."""
import os
import signal
import time

import sequential

NAME = "misbehaving"
DTYPES = sequential.DTYPES
FEATURES = sequential.FEATURES
PROVENANCE = sequential.PROVENANCE


def matmul(a, b, bias, route, execution, dtypes, threads):
    if os.environ.get("MISBEHAVE") == "slow":
        time.sleep(0.4)
    how = os.environ.get("MISBEHAVE", "") if a.shape[2] == 7 else ""
    if how == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if how == "hang":
        time.sleep(3600)
    if how == "garbage":
        os.write(3, b"this is no JSON\n")
        time.sleep(3600)
    if how == "shape":
        return sequential.matmul(a, b, bias, route, execution, dtypes, threads)[:, :1]
    return sequential.matmul(a, b, bias, route, execution, dtypes, threads)
