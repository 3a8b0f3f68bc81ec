/*
 * inputs_dir.h — a case's inputs from .npy files, as `fpdiv export` writes them, for `fpdiv check
 * --inputs DIR`: the user's own data in place of generated data, run through any relation.
 *
 * DIR holds A.npy (batch x m x k, or m x k), B.npy (batch x k x n, or k x n) and, for a case with a
 * bias, bias.npy (n): logical and in C order, as the product reads them (A @ B + bias). Their type
 * is the inputs' (bias.npy's the output's); bf16 arrives as its bits (uint16, int16, ml_dtypes'
 * 2-byte void), which --dtype must name. DIR may be a .npz archive of the same arrays instead
 * (np.savez(DIR, A=a, B=b, bias=bias)).
 */
#ifndef FPD_INPUTS_DIR_H
#define FPD_INPUTS_DIR_H

#include <stdbool.h>

#include "engine/case.h"

struct fpd_inputs {
    struct fpd_case_data data; /* A, B and (with a bias) the bias, packed: a case's inline data */
    struct fpd_dtypes dt;      /* --dtype's, or the files' with the CLI's defaults for the rest */
};

/* Reads DIR's arrays; `dtype` is --dtype or NULL, `bias` whether the case has one. FPD_OK,
 * FPD_ERR_INPUT with why naming the file and what is wrong, or FPD_ERR_NOMEM. */
int fpd_inputs_load(const char *dir, const char *dtype, bool bias, struct fpd_inputs *out, char *why, size_t why_size);

#endif
