/* export_files.h — `fpdiv export`'s files: a saved case as a framework's users would write it. */
#ifndef FPD_EXPORT_FILES_H
#define FPD_EXPORT_FILES_H

#include <stddef.h>

#include "report/export_target.h"
#include "store/corpus.h"

/* Writes, in dir (made as `mkdir -p` does), the case's inputs as A.npy (batch x m x k), B.npy
 * (batch x k x n) and bias.npy (n), in logical order (row-major, untransposed; bf16 as its uint16
 * bits), and repro_<framework>.py, which runs the relation's two paths with the operations the
 * bridge runs for that framework (scripts/bridge/frameworks/) on operands stored as fpdiv stored
 * them, and prints how many elements differ and by how much. Text from the case file reaches the
 * script only inside escaped string literals. The caller has checked that the framework takes the
 * case (fpd_export_target_takes). FPD_OK, FPD_ERR_NOMEM, or FPD_ERR_INPUT with why naming the file. */
int fpd_export_write(const char *dir, const struct fpd_export_target *fw, const struct fpd_case_file *f, char *why,
                     size_t why_size);

#endif
