#include "cli/cli_live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "models/mdl.h"

void cli_live_defaults(val_live_srv *s, val_live_opts *o)
{
    val_live_srv_init(s);
    val_live_opts_init(o);
    s->redis.password = getenv("TFSIM_REDIS_PASSWORD");
    s->pg.pre_ping = 1;
}

static int need(const char *cmd, int argc, char **argv, int i)
{
    if (i + 1 >= argc) {
        cli_usage_error(cmd, "%s needs a value", argv[i]);
        return 0;
    }
    return 1;
}

static int duration(const char *cmd, const char *flag, const char *v, double lo, double *out)
{
    const char *why;
    double d;
    if (sim_parse_duration(v, &d, &why) || !(d >= lo) || d > 86400) {
        cli_usage_error(cmd, "%s: '%s' is not a duration in [%g s, 1 day] (e.g. 2s, 500us)", flag, v, lo);
        return -1;
    }
    *out = d;
    return 0;
}

int cli_live_opt(const char *cmd, int argc, char **argv, int *i, val_live_srv *s, val_live_opts *o)
{
    static const char *const with_value[] = {
        "--redis-socket", "--redis-host", "--redis-port", "--redis-user", "--redis-password", "--redis-db",
        "--redis-prefix", "--pg-conninfo", "--timeout",   "--cpu-scale",      "--cpu-per-step"};
    const char *a = argv[*i];
    if (!strcmp(a, "--pg-keep")) {
        s->pg.keep = 1;
        return 1;
    }
    int known = 0;
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        known |= !strcmp(a, with_value[k]);
    if (!known)
        return 0;
    if (!need(cmd, argc, argv, *i))
        return -1;
    const char *v = argv[++*i];
    long n;
    if (!strcmp(a, "--redis-socket")) {
        s->redis.socket = v;
    } else if (!strcmp(a, "--redis-host")) {
        s->redis.host = v;
    } else if (!strcmp(a, "--redis-port")) {
        if (cli_parse_long(cmd, a, v, 1, 65535, &n))
            return -1;
        s->redis.port = (int)n;
    } else if (!strcmp(a, "--redis-user")) {
        s->redis.user = v;
    } else if (!strcmp(a, "--redis-password")) {
        s->redis.password = v;
    } else if (!strcmp(a, "--redis-db")) {
        if (cli_parse_long(cmd, a, v, 0, 1000000, &n))
            return -1;
        s->redis.db = (int)n;
    } else if (!strcmp(a, "--redis-prefix")) {
        if (!*v || strlen(v) > 100 || strpbrk(v, " *?[]\\")) {
            cli_usage_error(cmd, "--redis-prefix: 1 to 100 characters without spaces or *?[]\\");
            return -1;
        }
        s->redis.prefix = v;
    } else if (!strcmp(a, "--pg-conninfo")) {
        s->pg.conninfo = v;
    } else if (!strcmp(a, "--timeout")) {
        if (duration(cmd, a, v, 1e-3, &s->timeout))
            return -1;
    } else if (!strcmp(a, "--cpu-per-step")) {
        if (duration(cmd, a, v, 0, &o->cpu_per_step))
            return -1;
    } else {
        char *end;
        double f = strtod(v, &end);
        if (end == v || *end || !(f >= 0 && f <= 1000)) {
            cli_usage_error(cmd, "--cpu-scale: '%s' is not a factor in [0, 1000]", v);
            return -1;
        }
        o->cpu_scale = f;
    }
    return 1;
}

int cli_live_params(const cli_opts *o, sim_cfg *cfg, sim_cfg *ov, tf_params *p, sim_err *err)
{
    memset(p, 0, sizeof *p);
    if (cli_scenario_load(o, cfg, ov, err))
        return err->code;
    mdl_scenario sc;
    int rc = mdl_scenario_init(&sc, cfg, err);
    if (rc == SIM_OK && sc.type != &mdl_tigerfans_type)
        rc = sim_err_set(err, SIM_EINPUT, "%s: model.type = %s: the live driver runs TigerFans scenarios "
                         "(model.type = tigerfans)", o->config ? o->config : "(defaults)", sc.type->name);
    if (rc == SIM_OK)
        rc = tf_params_read(p, cfg, sc.schema, sc.nschema, err);
    mdl_scenario_fini(&sc);
    if (rc == SIM_OK && (rc = val_live_check(p, err)))
        sim_err_prefix(err, "%s: ", o->config ? o->config : "(defaults)");
    return rc;
}

void cli_live_progress(void *ctx, int phase, double ok, double wall)
{
    fprintf(stderr, "tfsim %s: %-8s %6.0f requests in %.3f s (%.1f/s)\n", (const char *)ctx,
            tf_phase_names[phase], ok, wall, wall > 0 ? ok / wall : 0.0);
}
