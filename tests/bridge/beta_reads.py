"""A framework for the bridge's tests whose addmm reads its input when beta is 0: alpha * (A @ B)
+ beta * input, so a NaN or an infinity in an input it was told to ignore comes through as 0 * NaN
(the class of torch-musa #52, pytorch #187521 and #196596). Right for alpha 1 and beta 1, and
wherever there is a bias."""
import numpy as np

NAME = "beta-reads"
DTYPES = [("f64", "f64", "f64")]
FEATURES = {"fused_bias", "scalars"}


def PROVENANCE():
    return {"library": "a test framework", "version": "1"}


def matmul(a, b, bias, route, execution, dtypes, threads, scalars=None):
    product = np.matmul(a, b)
    if scalars is None:
        return product if bias is None else product + bias
    alpha, beta, prior = scalars
    given = prior if bias is None else bias  # addmm's input: never skipped, whatever beta is
    with np.errstate(invalid="ignore"):
        return alpha * product + beta * given
