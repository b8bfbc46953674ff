#include "cli/cli_scenario.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "reports/rep_store.h"
#include "sim/sim.h"
#include "sim/sim_afile.h"

static int need(const char *cmd, int argc, char **argv, int i)
{
    if (i + 1 >= argc) {
        cli_usage_error(cmd, "%s needs a value", argv[i]);
        return 0;
    }
    return 1;
}

int cli_scenario_opt(const char *cmd, int argc, char **argv, int *i, sim_cfg *ov, cli_opts *o)
{
    const char *a = argv[*i];
    char buf[256];
    sim_err err;
    sim_err_clear(&err);
    if (!strcmp(a, "--set") || !strcmp(a, "-s")) {
        if (!need(cmd, argc, argv, *i))
            return -1;
        if (sim_cfg_set(ov, argv[++*i], &err)) {
            cli_fail(cmd, &err);
            return -1;
        }
        return 1;
    }
    if (!strcmp(a, "--jobs")) {
        if (!need(cmd, argc, argv, *i))
            return -1;
        long v;
        if (cli_parse_long(cmd, a, argv[++*i], 1, 64, &v))
            return -1;
        o->jobs = (int)v;
        return 1;
    }
    if (!strcmp(a, "--seed") || !strcmp(a, "--reps")) {
        if (!need(cmd, argc, argv, *i))
            return -1;
        unsigned long long v;
        if (cli_parse_u64(cmd, a, argv[++*i], &v))
            return -1;
        snprintf(buf, sizeof buf, "run.%s=%llu", !strcmp(a, "--seed") ? "seed" : "replications", v);
        sim_cfg_set_as(ov, buf, a, &err);
        return 1;
    }
    if (!strcmp(a, "--format") || !strcmp(a, "-f")) {
        if (!need(cmd, argc, argv, *i))
            return -1;
        return cli_parse_format(cmd, argv[++*i], &o->format) ? -1 : 1;
    }
    /* only `run` writes a manifest file (the others keep theirs in --db):
     * elsewhere --manifest is an unknown option, not one silently ignored */
    if ((!strcmp(a, "--manifest") && !strcmp(cmd, "run")) || !strcmp(a, "--db")) {
        if (!need(cmd, argc, argv, *i))
            return -1;
        if (!strcmp(a, "--db")) {
            o->db = argv[++*i];
        } else {
            o->manifest = argv[++*i];
            if (!strcmp(o->manifest, "-")) {
                cli_usage_error(cmd, "--manifest -: standard output holds the results; give a file");
                return -1;
            }
        }
        return 1;
    }
    return 0;
}

int cli_config_arg(const char *cmd, const char *arg, cli_opts *o)
{
    if (arg[0] == '-' && arg[1])
        return cli_usage_error(cmd, "unknown option %s", arg);
    if (o->config)
        return cli_usage_error(cmd, "more than one CONFIG (%s, %s)", o->config, arg);
    o->config = arg;
    return 0;
}

int cli_scenario_load(const cli_opts *o, sim_cfg *cfg, sim_cfg *ov, sim_err *err)
{
    if (o->config && sim_cfg_load(cfg, o->config, err))
        return err->code;
    for (size_t i = 0; i < sim_cfg_count(ov); i++) {
        const sim_cfg_entry *e = sim_cfg_at(ov, i);
        char buf[2048];
        snprintf(buf, sizeof buf, "%s.%s=%s", e->section, e->key, e->value);
        if (sim_cfg_set_as(cfg, buf, e->origin, err))
            return err->code;
    }
    return SIM_OK;
}

static void json_str(FILE *f, const char *s);

/* A JSON string of s with passwords masked (rep_redact). */
static void json_redacted(FILE *f, const char *s)
{
    char probe[1];
    size_t n = rep_redact(s, probe, sizeof probe) + 1;
    char *buf = malloc(n);
    if (!buf) {
        fputs("\"\"", f);
        return;
    }
    rep_redact(s, buf, n);
    json_str(f, buf);
    free(buf);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void cli_manifest_init(rep_manifest *m, const char *cmd, const cli_opts *o, const sim_cfg *cfg,
                       const mdl_scenario *sc)
{
    *m = (rep_manifest){
        .command = cmd,
        .title = o->config ? o->config : "(defaults)",
        .config_text = sim_cfg_text(cfg),
        .overrides = sim_cfg_overrides(cfg),
        .seed = sc->seed,
        .replications = (long)sc->plan.min_reps,
        .git_rev = tfsim_build_rev,
        .cflags = tfsim_build_flags,
        .config_hash = sim_cfg_hash(cfg),
    };
}

int cli_write_manifest(const char *path, const char *cmd, const sim_cfg *cfg,
                       const mdl_scenario *sc, unsigned reps, sim_err *err)
{
    sim_afile af;
    if (sim_afile_open(&af, path, err))
        return err->code;
    FILE *f = af.f;
    fprintf(f, "{\n  \"tool\": \"tfsim %s\",\n  \"command\": ", TFSIM_VERSION);
    json_str(f, cmd);
    fprintf(f, ",\n  \"git_revision\": ");
    json_str(f, tfsim_build_rev);
    fprintf(f, ",\n  \"compiler_flags\": ");
    json_str(f, tfsim_build_flags);
    fprintf(f, ",\n  \"config_hash\": \"%016llx\",\n  \"overrides\": ",
            (unsigned long long)sim_cfg_hash(cfg));
    json_redacted(f, sim_cfg_overrides(cfg));
    fprintf(f, ",\n  \"seed\": %llu,\n  \"replications\": %u,\n  \"model\": ",
            (unsigned long long)sc->seed, reps);
    json_str(f, sc->type->name);
    fprintf(f, ",\n  \"config_text\": ");
    json_redacted(f, sim_cfg_text(cfg));
    fprintf(f, "\n}\n");
    return sim_afile_commit(&af, err);
}

static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static struct timespec progress_t0, progress_last;

static double since(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

static void progress_hook(uint64_t total)
{
    if (pthread_mutex_trylock(&progress_lock))
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (since(&progress_last, &now) >= 1.0) {
        double el = since(&progress_t0, &now);
        fprintf(stderr, "\r%.0f M events, %.1f M events/s   ", (double)total / 1e6,
                el > 0 ? (double)total / el / 1e6 : 0.0);
        progress_last = now;
    }
    pthread_mutex_unlock(&progress_lock);
}

void cli_progress_install(void)
{
    const char *e = getenv("TFSIM_PROGRESS");
    if (!(cli_stderr_tty() || (e && !strcmp(e, "1"))))
        return;
    clock_gettime(CLOCK_MONOTONIC, &progress_t0);
    progress_last = progress_t0;
    sim_set_progress_hook(progress_hook);
}

int cli_store_run(const char *cmd, const char *path, const rep_manifest *m, const sim_table *t)
{
    sim_err err;
    sim_err_clear(&err);
    int64_t id = 0;
    fflush(stdout);
    rep_store *db = rep_store_open(path, REP_STORE_WRITE, &err);
    int rc = db ? rep_store_save_run(db, m, t, &id, &err) : err.code;
    rep_store_close(db);
    if (rc) {
        char rb[CLI_REDACT_MAX];
        fprintf(stderr, "tfsim %s: results printed but not stored: %s\n", cmd,
                cli_redact(err.msg, rb, sizeof rb));
        return EXIT_FAIL;
    }
    fprintf(stderr, "tfsim %s: stored as run %lld in %s\n", cmd, (long long)id, path);
    return EXIT_OK;
}

int cli_check_db(const char *cmd, const char *path)
{
    sim_err err;
    sim_err_clear(&err);
    rep_store *db = rep_store_open(path, REP_STORE_WRITE, &err);
    if (!db)
        return cli_fail(cmd, &err);
    rep_store_close(db);
    return EXIT_OK;
}
