/* libFuzzer target: the latency-samples CSV reader (val_samples), with a
 * write-back round trip through the writer.
 * Built and run by tests/fuzz/run.sh; the harness is in fuzz_targets.h.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "tests/fuzz/fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_samples_input(data, size);
}
