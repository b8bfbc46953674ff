#include "cli/cli_calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "models/mdl.h"
#include "models/tf_params.h"

int cli_calib_base(const char *base_path, const val_tigerbench *tb, const char *arch,
                   const sim_cfg *ov, sim_cfg *cfg, sim_err *err)
{
    const val_tigerbench_arch *a;
    if (val_tigerbench_arch_get(tb, arch, &a, err))
        return err->code;
    if (base_path && sim_cfg_load(cfg, base_path, err))
        return err->code;
    if (strcmp(a->accounting, "pg") && strcmp(a->accounting, "tb"))
        return sim_err_set(err, SIM_EINPUT, "%s: architecture %s: accounting '%s' is not one tfsim "
                           "models (pg, tb)", val_tigerbench_name(tb), arch, a->accounting);
    if (strcmp(a->payments, "pg") && strcmp(a->payments, "redis"))
        return sim_err_set(err, SIM_EINPUT, "%s: architecture %s: payments '%s' is not one tfsim "
                           "models (pg, redis)", val_tigerbench_name(tb), arch, a->payments);
    char buf[128];
    snprintf(buf, sizeof buf, "model.type=tigerfans");
    sim_cfg_set(cfg, buf, err);
    snprintf(buf, sizeof buf, "architecture.accounting=%s", a->accounting);
    sim_cfg_set(cfg, buf, err);
    snprintf(buf, sizeof buf, "architecture.payments=%s", a->payments);
    sim_cfg_set(cfg, buf, err);
    for (size_t i = 0; ov && i < sim_cfg_count(ov); i++) {
        const sim_cfg_entry *e = sim_cfg_at(ov, i);
        char line[2048];
        snprintf(line, sizeof line, "%s.%s=%s", e->section, e->key, e->value);
        if (sim_cfg_set(cfg, line, err))
            return err->code;
    }
    return err->code;
}

int cli_calib_value(const sim_cfg *cfg, const char *key, double *v, sim_err *err)
{
    char sec[64];
    const char *dot = strrchr(key, '.');
    if (!dot || (size_t)(dot - key) >= sizeof sec)
        return sim_err_set(err, SIM_EINPUT, "%s: expected SECTION.KEY", key);
    memcpy(sec, key, (size_t)(dot - key));
    sec[dot - key] = '\0';
    size_t n;
    sim_cfg_key *s = mdl_schema(NULL, &n);
    const sim_cfg_key *k = sim_cfg_spec(s, n, sec, dot + 1);
    int rc;
    if (!k)
        rc = sim_err_set(err, SIM_EINPUT, "%s: no such config key", key);
    else if (k->type != SIM_CFG_NUM && k->type != SIM_CFG_DUR && k->type != SIM_CFG_INT &&
             k->type != SIM_CFG_RATE)
        rc = sim_err_set(err, SIM_EINPUT, "%s: not a numeric key (calibration fits numbers)", key);
    else
        rc = sim_cfg_num(cfg, s, n, sec, dot + 1, v, err);
    free(s);
    return rc;
}

int cli_calib_params(const char *list, const sim_cfg *cfg, val_calib_param *params, size_t max,
                     size_t *n, sim_err *err)
{
    *n = 0;
    size_t nreg;
    const tf_param *reg = tf_params_registry(&nreg);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list ? list : "");
    char keys[64][96];
    size_t nk = 0;
    if (list) {
        char *save = NULL;
        for (char *t = strtok_r(buf, ", ", &save); t && nk < 64; t = strtok_r(NULL, ", ", &save))
            snprintf(keys[nk++], sizeof keys[0], "%s", t);
    } else {
        for (size_t i = 0; i < nreg && nk < 64; i++)
            if (reg[i].fit)
                tf_params_key(&reg[i], keys[nk++], sizeof keys[0]);
    }
    if (nk == 0)
        return sim_err_set(err, SIM_EINPUT, "--fit: no parameter given");
    for (size_t i = 0; i < nk; i++) {
        if (*n == max)
            return sim_err_set(err, SIM_EINPUT, "--fit: more than %zu parameters", max);
        val_calib_param *p = &params[(*n)++];
        memset(p, 0, sizeof *p);
        snprintf(p->key, sizeof p->key, "%s", keys[i]);
        double v;
        if (cli_calib_value(cfg, keys[i], &v, err))
            return sim_err_prefix(err, "--fit: "), err->code;
        const tf_param *r = tf_params_find(keys[i]);
        p->lo = 1e-9;
        p->hi = 1e9;
        if (r)
            tf_params_fit_bounds(r, &p->lo, &p->hi);
        if (!(v > p->lo))
            v = p->lo * 10 < p->hi ? p->lo * 10 : p->lo;
        if (v > p->hi)
            v = p->hi;
        p->value = v;
    }
    return SIM_OK;
}

int cli_calib_flag(const char *cmd, int argc, char **argv, int *i, long min_reps,
                   cli_calib_args *a)
{
    const char *f = argv[*i];
    if (strcmp(f, "--tigerbench") && strcmp(f, "--config") && strcmp(f, "--format") &&
        strcmp(f, "--seed") && strcmp(f, "--reps") && strcmp(f, "--rows0") && strcmp(f, "--set"))
        return 0;
    if (*i + 1 >= argc) {
        cli_usage_error(cmd, "%s needs a value", f);
        return -1;
    }
    const char *v = argv[++*i];
    const char *why;
    sim_err err;
    sim_err_clear(&err);
    if (!strcmp(f, "--tigerbench"))
        a->file = v;
    else if (!strcmp(f, "--config"))
        a->base = v;
    else if (!strcmp(f, "--format"))
        return cli_parse_format(cmd, v, &a->fmt) ? -1 : 1;
    else if (!strcmp(f, "--seed"))
        return cli_parse_u64(cmd, f, v, &a->seed) ? -1 : 1;
    else if (!strcmp(f, "--reps"))
        return cli_parse_long(cmd, f, v, min_reps, 100000, &a->reps) ? -1 : 1;
    else if (!strcmp(f, "--rows0")) {
        if (sim_parse_double(v, &a->rows0, &why) || a->rows0 < 0) {
            cli_usage_error(cmd, "--rows0: '%s' is not a row count", v);
            return -1;
        }
    } else if (sim_cfg_set(a->ov, v, &err)) {
        cli_fail(cmd, &err);
        return -1;
    }
    return 1;
}
