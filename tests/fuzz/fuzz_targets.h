/* fuzz_targets: the fuzz harnesses, shared by the libFuzzer mains
 * (tests/fuzz/fuzz_NAME.c, built with clang by tests/fuzz/run.sh) and by
 * tests/test_hostile.c, which replays the seed corpora and every saved
 * crash input (tests/fuzz/regress/NAME/) under the normal unit-test build.
 *
 * Each harness takes arbitrary bytes, drives one reader through its public
 * API (and what is built on it: model setup, the Amdahl/USL analyses) and
 * checks the invariants the reader promises: bad input gives an
 * error status with a message (never a crash, a hang or unbounded memory);
 * good input gives objects whose queries work.  A broken invariant calls
 * FUZZ_FAIL (abort() for libFuzzer; cmocka's fail_msg in the replay test).
 *
 * Targets: cfg (configs, includes, overrides, model setup and a small
 * run), dist (distribution specs), tigerbench (the TigerBench CSV and the
 * analyses on it), samples (the latency-samples CSV, its writer, and tfsim
 * fit with its config fragment loaded back), store (a results database
 * opened for reading, then every query).
 *
 * Cost bounds, so that one input runs in milliseconds: the config harness
 * forces small resource limits (run.max_events, run.max_pending), one
 * replication, and skips the simulation when the load is large.
 *
 * Ownership: everything a harness allocates is freed before it returns;
 * the file-based harnesses share one temporary directory per process
 * (removed at exit).
 */
#ifndef FUZZ_TARGETS_H
#define FUZZ_TARGETS_H

#include <assert.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/mdl.h"
#include "models/tf_sim.h"
#include "sim/sim_cfg.h"
#include "sim/sim_dist.h"
#include "sim/sim_rng.h"
#include "sim/sim_table.h"
#include "reports/rep_store.h"
#include "validate/val_amdahl.h"
#include "validate/val_cpu.h"
#include "validate/val_fit.h"
#include "validate/val_laws.h"
#include "validate/val_probe_http.h"
#include "validate/val_samples.h"
#include "validate/val_scaling.h"
#include "validate/val_series.h"
#include "validate/val_tigerbench.h"

#ifndef FUZZ_FAIL
#define FUZZ_FAIL(...)                                                \
    do {                                                              \
        fprintf(stderr, "fuzz invariant broken: " __VA_ARGS__);       \
        abort();                                                      \
    } while (0)
#endif

/* NUL-terminated copy of the input (owned by the caller). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    assert(s);
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A failed call must say why: a status of SIM_EFAIL or SIM_EINPUT and a
 * message. */
static inline void fuzz_check_err(const char *what, int rc, const sim_err *err)
{
    if (rc != err->code || (rc != SIM_EFAIL && rc != SIM_EINPUT) || !err->msg[0])
        FUZZ_FAIL("%s: status %d, err code %d, message '%s'\n", what, rc, err->code, err->msg);
}

static inline FILE *fuzz_null(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    assert(f);
    return f;
}

/* ---- distribution specs: parse, format, parse again, sample ---- */

static inline int fuzz_close(double a, double b)
{
    return a == b || fabs(a - b) <= 1e-8 * fmax(fabs(a), fabs(b));
}

static inline int fuzz_dist_input(const uint8_t *data, size_t size)
{
    sim_rng_setup();
    char *spec = fuzz_text(data, size);
    sim_dist d;
    char msg[256];
    if (sim_dist_parse(spec, &d, msg, sizeof msg)) {
        if (!msg[0])
            FUZZ_FAIL("dist: '%s' rejected without a message\n", spec);
        sim_dist_fini(&d);
        free(spec);
        return 0;
    }
    double mean = sim_dist_mean(&d), var = sim_dist_var(&d);
    if (!(isfinite(mean) && mean >= 0 && isfinite(var)))
        FUZZ_FAIL("dist: '%s' has mean %g, variance %g\n", spec, mean, var);
    /* format, then the text must parse back to the same distribution */
    int n = sim_dist_format(&d, NULL, 0);
    if (n <= 0)
        FUZZ_FAIL("dist: '%s' formats to %d bytes\n", spec, n);
    char *txt = malloc((size_t)n + 1);
    assert(txt);
    if (sim_dist_format(&d, txt, (size_t)n + 1) != n || strlen(txt) != (size_t)n)
        FUZZ_FAIL("dist: '%s': format length changed\n", spec);
    sim_dist e;
    if (sim_dist_parse(txt, &e, msg, sizeof msg))
        FUZZ_FAIL("dist: '%s' formats to '%s', which does not parse back: %s\n", spec, txt, msg);
    int same = e.kind == d.kind && fuzz_close(e.a, d.a) && fuzz_close(e.b, d.b) &&
               fuzz_close(e.shift, d.shift) && e.nq == d.nq;
    for (size_t i = 0; same && i < d.nq; i++)
        same = fuzz_close(e.q[i], d.q[i]);
    if (!same)
        FUZZ_FAIL("dist: '%s' formats to '%s', which parses to another distribution\n", spec, txt);
    /* samples: finite and non-negative */
    gsl_rng *r = sim_rng_new(1, 0, 0);
    for (int i = 0; i < 16; i++) {
        double x = sim_dist_sample(&d, r);
        if (!(isfinite(x) && x >= 0))
            FUZZ_FAIL("dist: '%s' sampled %g\n", spec, x);
    }
    gsl_rng_free(r);
    /* copy and scale keep a finite mean */
    sim_dist c;
    sim_dist_copy(&c, &d);
    sim_dist_scale(&c, 0.5);
    if (!isfinite(sim_dist_mean(&c)))
        FUZZ_FAIL("dist: '%s' scaled by 0.5 has mean %g\n", spec, sim_dist_mean(&c));
    sim_dist_fini(&c);
    sim_dist_fini(&e);
    sim_dist_fini(&d);
    free(txt);
    free(spec);
    return 0;
}

/* ---- TigerBench CSV: read, then query every summary ---- */

static inline void fuzz_tigerbench_query(const val_tigerbench *tb)
{
    size_t na = val_tigerbench_narch(tb);
    if (na == 0 || val_tigerbench_rows(tb) == 0)
        FUZZ_FAIL("tigerbench: success without data\n");
    for (size_t i = 0; i < na; i++) {
        const val_tigerbench_arch *a = val_tigerbench_arch_at(tb, i);
        if (val_tigerbench_find(tb, a->name) != a)
            FUZZ_FAIL("tigerbench: architecture %s not found by name\n", a->name);
        long conc[8];
        char buf[256];
        val_tigerbench_concurrencies(a, VAL_TIGERBENCH_PHASE_ROWS | VAL_TIGERBENCH_KIND_ROWS,
                                     conc, 8);
        val_tigerbench_concurrency_list(a, VAL_TIGERBENCH_PHASE_ROWS, buf, sizeof buf);
        val_tigerbench_concurrency_list(a, VAL_TIGERBENCH_KIND_ROWS, buf, 8);
        const char *names[8];
        val_tigerbench_phase_names(a, names, 8);
        for (size_t k = 0; k < a->nphases; k++) {
            const val_tigerbench_phase *p = &a->phases[k];
            if (val_tigerbench_phase_get(a, p->phase, p->concurrency) == NULL || p->reps < 1)
                FUZZ_FAIL("tigerbench: phase %s at %ld lost\n", p->phase, p->concurrency);
            const char *kinds[8];
            val_tigerbench_phase_kinds(p->phase, kinds, 8);
            val_tigerbench_phase_is_window(p->phase);
        }
        for (size_t k = 0; k < a->nkinds; k++) {
            const val_tigerbench_kind *q = &a->kinds[k];
            if (val_tigerbench_kind_get(a, q->kind, q->concurrency) == NULL || q->reps < 1)
                FUZZ_FAIL("tigerbench: kind %s at %ld lost\n", q->kind, q->concurrency);
        }
    }
    const val_tigerbench_arch *a;
    sim_err err;
    sim_err_clear(&err);
    int rc = val_tigerbench_arch_get(tb, "no_such-arch", &a, &err);
    if (rc == SIM_OK ? a == NULL : a != NULL || err.code != SIM_EINPUT)
        FUZZ_FAIL("tigerbench: arch_get of an absent name\n");
}

/* The analyses built on the reader (`tfsim amdahl --tigerbench`): scaling
 * fits per phase of the first architecture, Amdahl between the first two,
 * and the operational laws.  Failures must be reported, not crash. */
/* The series behind the file: its order, each architecture's state at
 * each concurrency (and one the file does not hold), the descriptions. */
static inline void fuzz_tigerbench_series(const val_tigerbench *tb)
{
    val_series s;
    val_series_opts o = {0, 1e5};
    sim_err err;
    sim_err_clear(&err);
    int rc = val_series_build(tb, &o, &s, &err);
    if (rc) {
        fuzz_check_err("series", rc, &err);
        val_series_fini(&s);
        return;
    }
    for (size_t a = 0; a < val_tigerbench_narch(tb) && a < 4; a++) {
        const val_tigerbench_arch *x = val_tigerbench_arch_at(tb, a);
        long cs[8];
        size_t n = val_tigerbench_concurrencies(x, VAL_TIGERBENCH_PHASE_ROWS | VAL_TIGERBENCH_KIND_ROWS,
                                                cs, 8);
        for (size_t i = 0; i <= n && i < 8; i++) {
            long c = i < n ? cs[i] : 7777777;
            double rows, goodies;
            sim_err_clear(&err);
            rc = val_series_state(&s, x->name, c, &rows, &goodies, NULL, NULL, &err);
            if (rc)
                fuzz_check_err("series state", rc, &err);
            else if (!(rows >= 0) || !(goodies >= 0))
                FUZZ_FAIL("series: negative or NaN state\n");
            char d[512];
            val_series_describe(&s, x->name, c, d, sizeof d);
        }
    }
    val_series_fini(&s);
}

static inline void fuzz_tigerbench_analyses(const val_tigerbench *tb)
{
    const val_tigerbench_arch *a = val_tigerbench_arch_at(tb, 0);
    const char *names[4];
    size_t np = val_tigerbench_phase_names(a, names, 4);
    sim_err err;
    for (size_t i = 0; i < np && i < 4; i++) {
        val_scaling sc;
        sim_err_clear(&err);
        int rc = val_scaling_init(&sc, tb, a->name, names[i], &err);
        if (rc) {
            fuzz_check_err("scaling", rc, &err);
            continue;
        }
        sim_table *t = sim_table_new(NULL);
        val_scaling_points_table(&sc, t);
        val_scaling_fits_table(&sc, t);
        sim_table_print(t, SIM_FMT_CSV, fuzz_null());
        sim_table_free(t);
        val_laws_findings f;
        val_laws_findings_init(&f);
        val_scaling_laws(&sc, 1, 0.1, 1, &f);
        t = sim_table_new(NULL);
        val_laws_table(&f, t);
        sim_table_print(t, SIM_FMT_TEXT, fuzz_null());
        sim_table_free(t);
        val_laws_findings_fini(&f);
        val_scaling_fini(&sc);
    }
    const val_tigerbench_arch *b = val_tigerbench_arch_at(tb, val_tigerbench_narch(tb) > 1);
    long conc;
    if (!val_tigerbench_concurrencies(a, VAL_TIGERBENCH_KIND_ROWS, &conc, 1))
        return;
    val_amdahl_in in;
    val_amdahl_out out;
    sim_err_clear(&err);
    int rc = val_amdahl_from_tigerbench(tb, a->name, b->name, conc, VAL_AMDAHL_READ_MEAN, &in,
                                        &err);
    if (!rc)
        rc = val_amdahl_compute(&in, &out, &err);
    if (rc) {
        fuzz_check_err("amdahl", rc, &err);
        return;
    }
    sim_table *t = sim_table_new(NULL);
    const val_amdahl_in *ins[1] = {&in};
    const val_amdahl_out *outs[1] = {&out};
    const char *cols[1] = {"measured"};
    val_amdahl_table(ins, outs, cols, 1, NULL, t);
    sim_table_print(t, SIM_FMT_JSON, fuzz_null());
    sim_table_free(t);
    val_laws_findings f;
    val_laws_findings_init(&f);
    val_amdahl_laws(&in, &f);
    val_laws_findings_fini(&f);
}

static inline int fuzz_tigerbench_input(const uint8_t *data, size_t size)
{
    /* fmemopen refuses size 0: an empty file is /dev/null */
    FILE *f = size ? fmemopen((void *)data, size, "rb") : fopen("/dev/null", "rb");
    assert(f);
    val_tigerbench *tb = NULL;
    sim_err err;
    sim_err_clear(&err);
    int rc = val_tigerbench_read_stream(f, "fuzz.csv", &tb, &err);
    fclose(f);
    if (rc) {
        fuzz_check_err("tigerbench", rc, &err);
        if (tb)
            FUZZ_FAIL("tigerbench: error with an object\n");
        return 0;
    }
    fuzz_tigerbench_query(tb);
    fuzz_tigerbench_analyses(tb);
    fuzz_tigerbench_series(tb);
    val_tigerbench_free(tb);
    return 0;
}

/* ---- scenario configs: includes, overrides, schema, model setup ---- */

/* The input is up to four parts separated by lines "%%": the main config
 * (loaded from memory as DIR/main.ini, and also written there so that
 * includes can cycle back to it), DIR/a.ini, DIR/b.ini, and --set
 * overrides, one per line. */
#define FUZZ_CFG_PARTS 4

static char fuzz_dir[64];

static inline void fuzz_cleanup(void)
{
    /* every file a target wrote (a list of names missed http.csv and left
     * one directory per run in /tmp) */
    DIR *d = opendir(fuzz_dir);
    if (d) {
        char p[sizeof fuzz_dir + 256 + 2];
        for (struct dirent *e; (e = readdir(d));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", fuzz_dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(fuzz_dir);
}

/* The harnesses' temporary directory (one per process, removed at exit). */
static inline const char *fuzz_tmpdir(void)
{
    if (!fuzz_dir[0]) {
        snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/tfsim-fuzz-XXXXXX");
        if (!mkdtemp(fuzz_dir))
            abort();
        atexit(fuzz_cleanup);
    }
    return fuzz_dir;
}

/* Write part (bytes, NULs kept) to DIR/name, or remove the file when part
 * is NULL. */
static inline void fuzz_cfg_file(const char *name, const char *part, size_t len)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", fuzz_tmpdir(), name);
    unlink(p);
    if (!part)
        return;
    FILE *f = fopen(p, "wb");
    assert(f);
    fwrite(part, 1, len, f);
    fclose(f);
}

/* Limits forced after the input's own overrides: small enough that one
 * input runs in milliseconds, and a model must stop cleanly at them. */
static const char *const fuzz_cfg_forced[] = {
    "run.max_events=5000", "run.max_pending=2000", "run.replications=1",
    "run.max_replications=1", "run.target_ci=0", "run.jobs=1",
};

/* Simulate only when the load is small (setup has already run on every
 * value; the simulation cost grows with these). */
static inline int fuzz_cfg_small(const mdl_scenario *sc, const sim_cfg *c)
{
    sim_err err;
    sim_err_clear(&err);
    long v;
    if (!strcmp(sc->type->name, "tigerfans"))
        return sim_cfg_int(c, sc->schema, sc->nschema, "client", "concurrency", &v, &err) == 0 &&
               v <= 200;
    return sim_cfg_int(c, sc->schema, sc->nschema, "closed", "customers", &v, &err) == 0 &&
           v <= 200;
}

static inline void fuzz_cfg_run(mdl_scenario *sc)
{
    sim_rep_result res;
    memset(&res, 0, sizeof res);
    sim_table *t = sim_table_new(NULL), *notes = sim_table_new(NULL);
    sim_err err;
    sim_err_clear(&err);
    int rc = mdl_scenario_run_text(sc, &res, t, notes, &err);
    if (rc) {
        fuzz_check_err("run", rc, &err);
    } else {
        for (int fmt = SIM_FMT_TEXT; fmt <= SIM_FMT_JSON; fmt++)
            sim_table_print(t, (sim_format)fmt, fuzz_null());
        sim_table_print(notes, SIM_FMT_CSV, fuzz_null());
    }
    sim_rep_result_fini(&res);
    sim_table_free(t);
    sim_table_free(notes);
}

/* First "\n%%\n" in [p, end), or NULL. */
static inline const char *fuzz_cfg_sep(const char *p, const char *end)
{
    for (; end - p >= 4; p++)
        if (!memcmp(p, "\n%%\n", 4))
            return p;
    return NULL;
}

static inline int fuzz_cfg_input(const uint8_t *data, size_t size)
{
    sim_rng_setup();
    char *text = fuzz_text(data, size);
    /* split into parts at "\n%%\n" (a part keeps its NUL bytes) */
    const char *part[FUZZ_CFG_PARTS] = {NULL};
    size_t len[FUZZ_CFG_PARTS] = {0};
    int np = 0;
    const char *p = text, *end = text + size;
    while (np < FUZZ_CFG_PARTS) {
        const char *sep = np + 1 < FUZZ_CFG_PARTS ? fuzz_cfg_sep(p, end) : NULL;
        part[np] = p;
        len[np] = sep ? (size_t)(sep - p) + 1 : (size_t)(end - p);
        np++;
        if (!sep)
            break;
        p = sep + 4;
    }
    fuzz_cfg_file("main.ini", part[0], len[0]);
    fuzz_cfg_file("a.ini", part[1], len[1]);
    fuzz_cfg_file("b.ini", part[2], len[2]);
    char *main_text = fuzz_text((const uint8_t *)part[0], len[0]);
    char name[128];
    snprintf(name, sizeof name, "%s/main.ini", fuzz_tmpdir());

    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    int rc = sim_cfg_load_string(c, main_text, name, &err);
    if (rc == SIM_OK && part[3]) {
        char *ov = fuzz_text((const uint8_t *)part[3], len[3]), *save = NULL;
        for (char *l = strtok_r(ov, "\n", &save); l && rc == SIM_OK; l = strtok_r(NULL, "\n", &save))
            rc = sim_cfg_set(c, l, &err);
        free(ov);
    }
    if (rc) {
        fuzz_check_err("load", rc, &err);
        goto out;
    }
    /* queries every entry must answer */
    for (size_t i = 0; i < sim_cfg_count(c); i++) {
        const sim_cfg_entry *e = sim_cfg_at(c, i);
        char w[512];
        if (!sim_cfg_find(c, e->section, e->key) || !*sim_cfg_where(c, e->section, e->key, w, sizeof w))
            FUZZ_FAIL("cfg: entry %s.%s not found\n", e->section, e->key);
    }
    const char *secs[40];
    sim_cfg_sections(c, "station.*", secs, 40);
    (void)sim_cfg_hash(c);
    size_t n;
    sim_cfg_key *schema = mdl_schema(NULL, &n);
    rc = sim_cfg_check(c, schema, n, &err);
    free(schema);
    if (rc) {
        fuzz_check_err("check", rc, &err);
        goto out;
    }
    for (size_t i = 0; i < sizeof fuzz_cfg_forced / sizeof fuzz_cfg_forced[0]; i++)
        if (sim_cfg_set(c, fuzz_cfg_forced[i], &err))
            FUZZ_FAIL("cfg: forced override %s: %s\n", fuzz_cfg_forced[i], err.msg);
    mdl_scenario sc;
    rc = mdl_scenario_init(&sc, c, &err);
    if (rc)
        fuzz_check_err("scenario", rc, &err);
    else if (fuzz_cfg_small(&sc, c))
        fuzz_cfg_run(&sc);
    mdl_scenario_fini(&sc);
out:
    sim_cfg_free(c);
    free(main_text);
    free(text);
    return 0;
}

/* ---- latency-samples CSV: read, write back, read again ---- */

#define FUZZ_SAMPLES_KEEP 64

static inline void fuzz_samples_path(char *p, size_t len, const char *name)
{
    snprintf(p, len, "%s/%s", fuzz_tmpdir(), name);
}

/* The input as the file name in the scratch folder (its path into p),
 * for readers that take a path. */
static inline void fuzz_input_file(char *p, size_t len, const char *name, const uint8_t *data,
                                   size_t size)
{
    fuzz_samples_path(p, len, name);
    FILE *f = fopen(p, "wb");
    assert(f);
    fwrite(data, 1, size, f);
    fclose(f);
}

/* A reader's failure: a proper status and message that names the file. */
static inline void fuzz_check_file_err(const char *what, int rc, const sim_err *err,
                                       const char *path)
{
    fuzz_check_err(what, rc, err);
    if (strncmp(err->msg, path, strlen(path)) != 0)
        FUZZ_FAIL("%s: message does not name the file: %s\n", what, err->msg);
}

/* tfsim fit on the samples: a table, and a config fragment that loads
 * back with every value a distribution (a fit of a 1e308 us latency used
 * to abort: its spec did not parse back). */
static inline void fuzz_fit(const char *in)
{
    val_fit_opts o;
    val_fit_opts_init(&o);
    o.quantiles = 20;
    sim_err err;
    sim_err_clear(&err);
    val_fit_result *fr = val_fit_file(in, &o, &err);
    if (!fr) {
        fuzz_check_err("fit", err.code ? err.code : -1, &err);
        return;
    }
    sim_table *t = val_fit_table(fr, 0);
    sim_table_print(t, SIM_FMT_CSV, fuzz_null());
    sim_table_free(t);
    char ini[128];
    fuzz_samples_path(ini, sizeof ini, "fit.ini");
    int rc = val_fit_write_config(fr, ini, &err);
    val_fit_result_free(fr);
    if (rc) {
        /* only two operations on one key may stop it */
        if (rc != SIM_EINPUT || !strstr(err.msg, "both map onto key"))
            FUZZ_FAIL("fit: fragment not written: %s\n", err.msg);
        return;
    }
    sim_cfg *c = sim_cfg_new();
    if (sim_cfg_load(c, ini, &err))
        FUZZ_FAIL("fit: the fragment does not load: %s\n", err.msg);
    if (sim_cfg_check(c, NULL, 0, &err))
        FUZZ_FAIL("fit: a fitted value is not a distribution: %s\n", err.msg);
    sim_cfg_free(c);
}

static inline int fuzz_samples_input(const uint8_t *data, size_t size)
{
    char in[128], out[128];
    fuzz_input_file(in, sizeof in, "in.csv", data, size);
    fuzz_samples_path(out, sizeof out, "out.csv");
    unlink(out); /* the writer keeps an existing file until rows come */
    sim_err err;
    sim_err_clear(&err);
    val_samples_reader *r = val_samples_open(in, &err);
    if (!r) {
        fuzz_check_err("samples open", err.code ? err.code : -1, &err);
        return 0;
    }
    val_samples_writer *w = val_samples_create(out, &err);
    if (!w)
        FUZZ_FAIL("samples: cannot create %s: %s\n", out, err.msg);
    static val_sample kept[FUZZ_SAMPLES_KEEP];
    size_t n = 0;
    val_sample s;
    int rc;
    while ((rc = val_samples_next(r, &s, &err)) == 1) {
        if (!val_samples_op_ok(s.op) || s.concurrency < 1 ||
            s.concurrency > VAL_SAMPLES_MAX_CONC || !(isfinite(s.latency_us) && s.latency_us >= 0) ||
            !(isfinite(s.timestamp) && s.timestamp >= 0))
            FUZZ_FAIL("samples: row %zu breaks the format: %s,%u,%g,%g\n", n, s.op,
                      s.concurrency, s.latency_us, s.timestamp);
        if (val_samples_add(w, s.op, s.concurrency, s.latency_us, s.timestamp, &err))
            FUZZ_FAIL("samples: cannot write row %zu: %s\n", n, err.msg);
        if (n < FUZZ_SAMPLES_KEEP)
            kept[n] = s;
        n++;
    }
    if (rc < 0) {
        fuzz_check_err("samples", err.code ? err.code : -1, &err);
        if (val_samples_next(r, &s, &err) != -1)
            FUZZ_FAIL("samples: a read after an error did not fail\n");
    } else if (rc != 0) {
        FUZZ_FAIL("samples: next returned %d\n", rc);
    }
    val_samples_reader_free(r);
    if (val_samples_close(w, &err))
        FUZZ_FAIL("samples: close: %s\n", err.msg);
    /* what was written reads back as the same rows */
    r = val_samples_open(out, &err);
    if (!r)
        FUZZ_FAIL("samples: written file does not open: %s\n", err.msg);
    size_t m = 0;
    while ((rc = val_samples_next(r, &s, &err)) == 1) {
        if (m < n && m < FUZZ_SAMPLES_KEEP) {
            const val_sample *k = &kept[m];
            if (strcmp(s.op, k->op) || s.concurrency != k->concurrency ||
                fabs(s.latency_us - k->latency_us) > 5e-4 + 1e-15 * k->latency_us ||
                fabs(s.timestamp - k->timestamp) > 5e-7 + 1e-15 * k->timestamp)
                FUZZ_FAIL("samples: row %zu changed on the round trip\n", m);
        }
        m++;
    }
    if (rc != 0 || m != n)
        FUZZ_FAIL("samples: read back %zu of %zu rows (%s)\n", m, n, err.msg);
    val_samples_reader_free(r);
    fuzz_fit(in);
    return 0;
}

/* ---- results database: open for reading, then every query ---- */

static inline void fuzz_store_table(const char *what, sim_table *t, const sim_err *err)
{
    if (!t) {
        fuzz_check_err(what, err->code, err);
        return;
    }
    for (int fmt = SIM_FMT_TEXT; fmt <= SIM_FMT_JSON; fmt++)
        sim_table_print(t, (sim_format)fmt, fuzz_null());
    sim_table_free(t);
}

static inline int fuzz_store_input(const uint8_t *data, size_t size)
{
    char p[128];
    snprintf(p, sizeof p, "%s/f.db", fuzz_tmpdir());
    static const char *const side[] = {"-wal", "-shm", "-journal"};
    for (size_t i = 0; i < 3; i++) {
        char q[160];
        snprintf(q, sizeof q, "%s%s", p, side[i]);
        unlink(q);
    }
    FILE *f = fopen(p, "wb");
    assert(f);
    if (size)
        fwrite(data, 1, size, f);
    fclose(f);
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, REP_STORE_READ, &err);
    if (!s) {
        fuzz_check_err("store open", err.code, &err);
        return 0;
    }
    sim_err_clear(&err);
    fuzz_store_table("runs", rep_store_list_runs(s, &err), &err);
    sim_err_clear(&err);
    fuzz_store_table("sweeps", rep_store_list_sweeps(s, &err), &err);
    sim_err_clear(&err);
    fuzz_store_table("measurements", rep_store_list_measurements(s, &err), &err);
    for (int64_t id = 0; id <= 3; id++) {
        sim_err_clear(&err);
        fuzz_store_table("run table", rep_store_load_table(s, id, &err), &err);
        sim_err_clear(&err);
        fuzz_store_table("sweep table", rep_store_sweep_table(s, id, &err), &err);
        sim_err_clear(&err);
        fuzz_store_table("measurement set", rep_store_load_measurements(s, id, &err), &err);
        sim_err_clear(&err);
        fuzz_store_table("run manifest", rep_store_manifest(s, REP_RUN, id, &err), &err);
        sim_err_clear(&err);
        fuzz_store_table("sweep manifest", rep_store_manifest(s, REP_SWEEP, id, &err), &err);
        bool done;
        sim_err_clear(&err);
        int rc = rep_store_point_done(s, id, 0, &done, &err);
        if (rc)
            fuzz_check_err("point done", rc, &err);
    }
    rep_store_close(s);
    return 0;
}

/* The HTTP probe's CSV reader (val_probe_http_read): every row it accepts
 * keeps the format's promises, an error names the file, and the summary
 * of the rows works. */
static inline int fuzz_http_csv_input(const uint8_t *data, size_t size)
{
    char in[128];
    fuzz_input_file(in, sizeof in, "http.csv", data, size);
    sim_err err;
    sim_err_clear(&err);
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    int rc = val_probe_http_read(in, &res, &err);
    if (rc != SIM_OK)
        fuzz_check_file_err("http csv", rc, &err, in);
    for (size_t i = 0; i < res.n; i++) {
        const val_http_row *r = &res.rows[i];
        if (r->phase < 0 || r->phase >= VAL_HTTP_NPHASES || r->concurrency < 1 ||
            r->concurrency > VAL_HTTP_MAX_CONC || r->total < 1 || r->ok > r->total ||
            r->errors > r->total - r->ok || !(r->walltime > 0) || !isfinite(r->walltime) ||
            !(r->latency_ms >= 0 && r->latency_ms <= VAL_HTTP_MAX_LATENCY_MS) ||
            !(isfinite(r->throughput) && r->throughput >= 0) ||
            !(isfinite(r->client_cpu) && r->client_cpu >= 0) ||
            !(isfinite(r->server_cpu) && r->server_cpu >= 0) ||
            (r->server_requests > 0 && !(isfinite(r->server_await) && r->server_await >= 0)) ||
            (r->server_requests == 0 && !isnan(r->server_await)))
            FUZZ_FAIL("http csv: row %zu breaks the format\n", i);
        /* the pool columns: measured (finite, idle within the open ones)
         * or not (NaN, as in every row of an older file) */
        int v1 = r->ncols == VAL_HTTP_NCOLS_V1;
        if ((!v1 && r->ncols != VAL_HTTP_NCOLS) ||
            (v1 && !(isnan(r->pool_passes) && isnan(r->pool_conns) && isnan(r->pool_idle))) ||
            !(isnan(r->pool_passes) || (isfinite(r->pool_passes) && r->pool_passes >= 0)) ||
            isnan(r->pool_conns) != isnan(r->pool_idle) ||
            (!isnan(r->pool_conns) && !(isfinite(r->pool_conns) && r->pool_idle >= 0 &&
                                         r->pool_idle <= r->pool_conns + 1e-9)))
            FUZZ_FAIL("http csv: row %zu breaks the pool columns\n", i);
        if (i > 0 && r->ncols != res.rows[0].ncols)
            FUZZ_FAIL("http csv: rows %zu and 0 differ in columns\n", i);
    }
    sim_table *t = val_probe_http_table(&res);
    if (!t || (size_t)sim_table_nrows(t) > res.n || (res.n > 0 && sim_table_nrows(t) < 1))
        FUZZ_FAIL("http csv: summary of %zu rows has %d\n", res.n, t ? sim_table_nrows(t) : -1);
    sim_table_free(t);
    val_probe_http_result_fini(&res);
    return 0;
}

/* The CPU split reader (val_cpu_read): every row it accepts keeps the
 * format's promises, an error names the file and keeps nothing, and the
 * means over its rows are in range. */
static inline int fuzz_cpu_input(const uint8_t *data, size_t size)
{
    char in[128];
    fuzz_input_file(in, sizeof in, "cpu.csv", data, size);
    sim_err err;
    sim_err_clear(&err);
    val_cpu c;
    int rc = val_cpu_read(in, &c, &err);
    if (rc != SIM_OK) {
        fuzz_check_file_err("cpu csv", rc, &err, in);
        if (c.rows || c.n)
            FUZZ_FAIL("cpu csv: rows kept after an error\n");
        return 0;
    }
    for (size_t i = 0; i < c.n; i++) {
        const val_cpu_row *r = &c.rows[i];
        if (r->phase < 0 || r->phase >= TF_NPHASES || r->concurrency < 1 ||
            r->concurrency > 1000000 || !r->arch[0] || !(isfinite(r->throughput) && r->throughput >= 0))
            FUZZ_FAIL("cpu csv: row %zu breaks the format\n", i);
        for (int k = 0; k < VAL_CPU_NCOMP; k++) {
            if (!(r->cpu[k] >= 0 && r->cpu[k] <= VAL_CPU_MAX_MS * 1e-3))
                FUZZ_FAIL("cpu csv: row %zu: %s CPU %g out of range\n", i, val_cpu_comp_names[k],
                          r->cpu[k]);
            double m = val_cpu_mean(&c, r->arch, r->concurrency, r->phase, k);
            if (!(m >= 0 && m <= VAL_CPU_MAX_MS * 1e-3))
                FUZZ_FAIL("cpu csv: mean %g out of range\n", m);
        }
    }
    val_cpu_fini(&c);
    return 0;
}

#endif
