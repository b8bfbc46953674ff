/* libFuzzer target: the HTTP probe's CSV reader (val_probe_http_read) and
 * its summary.
 * Built and run by tests/fuzz/run.sh; the harness is in fuzz_targets.h.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "tests/fuzz/fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_http_csv_input(data, size);
}
