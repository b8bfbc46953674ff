/* libFuzzer target: the CPU split CSV reader (val_cpu), as
 * `tfsim calibrate --cpu` reads it.
 * Built and run by tests/fuzz/run.sh; the harness is in fuzz_targets.h.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "tests/fuzz/fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_cpu_input(data, size);
}
