/* val_presets: config files applied by name (see the header).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_presets.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct preset {
    const char *name, *path;
    const char *sections[4]; /* the sections applied (NULL-terminated) */
    const unsigned char *text;
    const unsigned int *len;
} preset;

static const preset presets[] = {
    {"debian12", "configs/tigerfans/client_debian12.ini", {"client", "host", "redis", NULL},
     val_preset_client_debian12_ini,
     &val_preset_client_debian12_ini_len},
};

static const preset *find(const char *name)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (!strcmp(presets[i].name, name))
            return &presets[i];
    return NULL;
}

const char *val_preset_path(const char *name)
{
    const preset *p = find(name);
    return p ? p->path : NULL;
}

int val_preset_apply(const char *name, sim_cfg *ov, sim_err *err)
{
    const preset *p = find(name);
    if (!p)
        return sim_err_set(err, SIM_EINPUT, "unknown preset '%s' (known: debian12)", name);
    /* a NUL-terminated copy without its include lines: the base config is
     * the caller's */
    size_t n = *p->len;
    char *text = malloc(n + 1);
    assert(text);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && p->text[e] != '\n')
            e++;
        size_t s = i;
        while (s < e && (p->text[s] == ' ' || p->text[s] == '\t'))
            s++;
        /* an "include = ..." line (the key alone, then blanks or '=') */
        size_t k = s + 7;
        int include = e - s >= 7 && !memcmp(p->text + s, "include", 7) &&
                      (k == e || p->text[k] == ' ' || p->text[k] == '\t' || p->text[k] == '=');
        if (!include) {
            memcpy(text + o, p->text + i, e - i);
            o += e - i;
        }
        if (e < n)
            text[o++] = '\n';
        i = e + 1;
    }
    text[o] = 0;
    sim_cfg *c = sim_cfg_new();
    sim_err perr;
    sim_err_clear(&perr);
    int rc = sim_cfg_load_string(c, text, p->path, &perr);
    assert(rc == SIM_OK && "an embedded preset must parse");
    (void)rc;
    char origin[256];
    snprintf(origin, sizeof origin, "%s (embedded)", p->path);
    for (size_t i = 0; i < sim_cfg_count(c) && err->code == SIM_OK; i++) {
        const sim_cfg_entry *e = sim_cfg_at(c, i);
        int applied = 0;
        for (size_t k = 0; p->sections[k]; k++)
            applied |= !strcmp(e->section, p->sections[k]);
        if (!applied)
            continue;
        char line[SIM_CFG_MAX_LINE];
        snprintf(line, sizeof line, "%s.%s=%s", e->section, e->key, e->value);
        sim_cfg_set_as(ov, line, origin, err);
    }
    sim_cfg_free(c);
    free(text);
    return err->code;
}
