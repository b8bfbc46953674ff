#include "sim/sim_cfg.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_dist.h"
#include "sim/sim_str.h"

struct sim_cfg {
    sim_cfg_entry *e;
    size_t n, cap;
    /* per entry: the previous entry with the same section and key (index
     * + 1, 0 for none) and the load (one file read, numbered from 1; 0 for
     * --set) it came from */
    size_t *prev;
    unsigned *load;
    unsigned nloads;
    /* open addressing: index + 1 of the newest entry of a (section, key),
     * 0 for an empty slot; nslot a power of two, at most half full */
    size_t *slot, nslot, nkeys;
    char *name;  /* first file loaded (or the name of the first text) */
    char *text;  /* raw file texts */
    size_t text_len, text_cap;
    char *overrides;
    size_t ov_len, ov_cap;
    /* every [section] header read, so that an unknown one is named at its
     * own line, with or without keys (entries name their key's line) */
    sim_cfg_entry *hdr; /* section, origin and line set; key and value NULL */
    size_t nhdr, hdr_cap;
};

static void buf_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = *cap ? *cap : 256;
        while (*len + n + 1 > nc)
            nc *= 2;
        *buf = realloc(*buf, nc);
        assert(*buf);
        *cap = nc;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
}

sim_cfg *sim_cfg_new(void)
{
    sim_cfg *c = calloc(1, sizeof *c);
    assert(c);
    buf_append(&c->text, &c->text_len, &c->text_cap, "", 0);
    buf_append(&c->overrides, &c->ov_len, &c->ov_cap, "", 0);
    return c;
}

void sim_cfg_free(sim_cfg *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->e[i].section);
        free(c->e[i].key);
        free(c->e[i].value);
        free(c->e[i].origin);
    }
    free(c->e);
    for (size_t i = 0; i < c->nhdr; i++) {
        free(c->hdr[i].section);
        free(c->hdr[i].origin);
    }
    free(c->hdr);
    free(c->prev);
    free(c->load);
    free(c->slot);
    free(c->name);
    free(c->text);
    free(c->overrides);
    free(c);
}

/* The start of sim_cfg's hashes: FNV-1a's offset basis short of its last
 * digit since the first version, kept so that hashes stored by earlier
 * versions (sim_cfg_hash in result keys) still match. */
#define CFG_FNV0 1469598103934665603ULL

static uint64_t key_hash(const char *sec, const char *key)
{
    return sim_str_fnv(key, strlen(key), sim_str_fnv_field(sec, CFG_FNV0));
}

/* The slot of (sec, key): the one holding its newest entry, or the empty
 * slot where it would go. */
static size_t *find_slot(const sim_cfg *c, const char *sec, const char *key)
{
    size_t mask = c->nslot - 1;
    for (size_t i = (size_t)key_hash(sec, key) & mask;; i = (i + 1) & mask) {
        size_t *s = &c->slot[i];
        if (!*s)
            return s;
        const sim_cfg_entry *e = &c->e[*s - 1];
        if (!strcmp(e->key, key) && !strcmp(e->section, sec))
            return s;
    }
}

static void grow_slots(sim_cfg *c)
{
    size_t old = c->nslot, *os = c->slot;
    c->nslot = old ? 2 * old : 128;
    c->slot = calloc(c->nslot, sizeof *c->slot);
    assert(c->slot);
    for (size_t i = 0; i < old; i++)
        if (os[i]) {
            const sim_cfg_entry *e = &c->e[os[i] - 1];
            *find_slot(c, e->section, e->key) = os[i];
        }
    free(os);
}

static void add_entry(sim_cfg *c, const char *sec, const char *key, const char *val,
                      const char *origin, int line, unsigned load)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->e = realloc(c->e, c->cap * sizeof *c->e);
        c->prev = realloc(c->prev, c->cap * sizeof *c->prev);
        c->load = realloc(c->load, c->cap * sizeof *c->load);
        assert(c->e && c->prev && c->load);
    }
    if (2 * (c->nkeys + 1) > c->nslot)
        grow_slots(c);
    sim_cfg_entry *e = &c->e[c->n];
    e->section = sim_str_dup(sec);
    e->key = sim_str_dup(key);
    e->value = sim_str_dup(val);
    e->origin = sim_str_dup(origin);
    e->line = line;
    size_t *s = find_slot(c, sec, key);
    c->prev[c->n] = *s;
    c->load[c->n] = load;
    if (!*s)
        c->nkeys++;
    *s = ++c->n;
}

/* The entry of (sec, key) that load `load` itself made, or NULL: entries
 * of loads numbered from `load` on were made while it was being read
 * (by it or by the files it includes). */
static const sim_cfg_entry *same_load(const sim_cfg *c, const char *sec, const char *key,
                                      unsigned load)
{
    if (!c->nslot)
        return NULL;
    for (size_t i = *find_slot(c, sec, key); i && c->load[i - 1] >= load; i = c->prev[i - 1])
        if (c->load[i - 1] == load)
            return &c->e[i - 1];
    return NULL;
}

/* Section and key names: letters, digits, _, - and (sections) dots. */
static int name_ok(const char *s, int dots)
{
    if (!*s)
        return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-' || (dots && *p == '.')))
            return 0;
    return 1;
}

/* Length of the invalid UTF-8 sequence at p, or 0 when p starts a valid
 * one (or is ASCII); overlong forms, surrogates and code points above
 * U+10FFFF are invalid. */
static size_t bad_utf8(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 0;
    size_t n;
    unsigned cp;
    if (p[0] >= 0xC2 && p[0] <= 0xDF)
        n = 2, cp = p[0] & 0x1F;
    else if (p[0] >= 0xE0 && p[0] <= 0xEF)
        n = 3, cp = p[0] & 0x0F;
    else if (p[0] >= 0xF0 && p[0] <= 0xF4)
        n = 4, cp = p[0] & 0x07;
    else
        return 1;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return i;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return n;
    return 0;
}

int sim_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (bad_utf8(p))
            return 0;
        p += *p < 0x80 ? 1 : *p < 0xE0 ? 2 : *p < 0xF0 ? 3 : 4;
    }
    return 1;
}

/* ---- loading ---- */

static int load_text(sim_cfg *c, const char *text, const char *name, int depth,
                     const char **stack, sim_err *err);

static int path_is_abs(const char *p) { return p[0] == '/'; }

static char *join_path(const char *dir, const char *rel)
{
    if (path_is_abs(rel) || !dir || !*dir)
        return sim_str_dup(rel);
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    assert(p);
    snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

static char *dir_of(const char *path)
{
    const char *s = strrchr(path, '/');
    if (!s)
        return sim_str_dup(".");
    size_t n = (size_t)(s - path);
    char *d = malloc(n + 2);
    assert(d);
    if (n == 0) {
        strcpy(d, "/");
    } else {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

/* Read a whole file into a NUL-terminated buffer; rejects NUL bytes (at
 * the first chunk that holds one: /dev/zero fails at once). */
static int read_file(const char *path, char **out, const char *from, sim_err *err)
{
    if (!from)
        from = "";
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_err_set(err, SIM_EINPUT, "%s%s: cannot open: %s", from, path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    char chunk[8192];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        const char *nul = memchr(chunk, '\0', got);
        if (nul) {
            int line = 1;
            for (size_t i = 0; i < len; i++)
                line += buf[i] == '\n';
            for (const char *q = chunk; q < nul; q++)
                line += *q == '\n';
            fclose(f);
            free(buf);
            return sim_err_set(err, SIM_EINPUT, "%s%s:%d: NUL byte in config file", from, path,
                               line);
        }
        if (len + got > (size_t)64 << 20) {
            fclose(f);
            free(buf);
            return sim_err_set(err, SIM_EINPUT, "%s%s: config file larger than 64 MiB", from,
                               path);
        }
        buf_append(&buf, &len, &cap, chunk, got);
    }
    int bad = ferror(f) ? errno : 0; /* EISDIR for a directory */
    fclose(f);
    if (bad) {
        free(buf);
        return sim_err_set(err, SIM_EINPUT, "%s%s: read error: %s", from, path, strerror(bad));
    }
    if (!buf)
        buf_append(&buf, &len, &cap, "", 0);
    *out = buf;
    return SIM_OK;
}

static void set_name(sim_cfg *c, const char *name)
{
    if (!c->name)
        c->name = sim_str_dup(name);
}

static int load_file(sim_cfg *c, const char *path, int depth, const char **stack,
                     const char *from, sim_err *err)
{
    if (depth >= SIM_CFG_MAX_DEPTH)
        return sim_err_set(err, SIM_EINPUT, "%sinclude nesting deeper than %d at %s",
                           from ? from : "", SIM_CFG_MAX_DEPTH, path);
    char *canon = realpath(path, NULL);
    if (!canon)
        return sim_err_set(err, SIM_EINPUT, "%s%s: cannot open: %s", from ? from : "", path,
                           strerror(errno));
    for (int i = 0; i < depth; i++) {
        if (!strcmp(stack[i], canon)) {
            free(canon);
            return sim_err_set(err, SIM_EINPUT, "%sinclude cycle: %s includes itself",
                               from ? from : "", path);
        }
    }
    char *text = NULL;
    int rc = read_file(path, &text, from, err);
    if (rc) {
        free(canon);
        return rc;
    }
    set_name(c, path);
    char hdr[64];
    int hl = snprintf(hdr, sizeof hdr, "# file: ");
    buf_append(&c->text, &c->text_len, &c->text_cap, hdr, (size_t)hl);
    buf_append(&c->text, &c->text_len, &c->text_cap, path, strlen(path));
    buf_append(&c->text, &c->text_len, &c->text_cap, "\n", 1);
    buf_append(&c->text, &c->text_len, &c->text_cap, text, strlen(text));
    if (c->text_len && c->text[c->text_len - 1] != '\n')
        buf_append(&c->text, &c->text_len, &c->text_cap, "\n", 1);
    stack[depth] = canon;
    rc = load_text(c, text, path, depth + 1, stack, err);
    free(text);
    free(canon);
    return rc;
}

/* One key = value line (key and value already trimmed) of load `load`:
 * an include, or an entry; a key this load already set is an error. */
static int add_line(sim_cfg *c, const char *section, const char *key, const char *value,
                    const char *name, const char *dir, int line, unsigned load, int depth,
                    const char **stack, sim_err *err)
{
    if (!*key)
        return sim_err_set(err, SIM_EINPUT, "%s:%d: missing key name", name, line);
    if (!strcmp(key, "include")) {
        if (!*value)
            return sim_err_set(err, SIM_EINPUT, "%s:%d: include: empty file name", name, line);
        char *p = join_path(dir, value);
        char from[SIM_ERR_MSG_MAX / 2];
        snprintf(from, sizeof from, "%s:%d: include: ", name, line);
        size_t n0 = c->n;
        int rc = load_file(c, p, depth, stack, from, err);
        free(p);
        if (rc)
            return rc;
        /* an include overrides nothing this file set above it: its keys
         * would silently replace the including file's own (the file's keys
         * override what it includes, so the include goes first) */
        for (size_t i = n0; i < c->n; i++) {
            const sim_cfg_entry *e = &c->e[i], *mine = same_load(c, e->section, e->key, load);
            if (mine)
                return sim_err_set(err, SIM_EINPUT,
                                   "%s:%d: %s%s%s: set at line %d, then again by the include "
                                   "at line %d (%s:%d); put the include first: the including "
                                   "file's keys override it",
                                   name, mine->line, e->section, *e->section ? "." : "", e->key,
                                   mine->line, line, e->origin, e->line);
        }
        return SIM_OK;
    }
    if (!name_ok(key, 0))
        return sim_err_set(err, SIM_EINPUT, "%s:%d: %s: key names use letters, digits, _ and -",
                           name, line, key);
    const sim_cfg_entry *old = same_load(c, section, key, load);
    if (old)
        return sim_err_set(err, SIM_EINPUT,
                           "%s:%d: %s%s%s: set twice in one file (first at %s:%d); to override "
                           "a value, include the file that sets it, or use --set",
                           name, line, section, *section ? "." : "", key, old->origin, old->line);
    add_entry(c, section, key, value, name, line, load);
    return SIM_OK;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* The [section] headers one file has opened so far, for "repeated
 * section" (open addressing over their names; lines kept). */
typedef struct sec_seen {
    char **name;
    int *line;
    size_t n, cap;  /* cap a power of two, at most half full */
} sec_seen;

/* Line of name's first header, or 0 after recording it at line. */
static int sec_seen_add(sec_seen *s, const char *name, int line)
{
    if (2 * (s->n + 1) > s->cap) {
        sec_seen g = {NULL, NULL, 0, s->cap ? 2 * s->cap : 16};
        g.name = calloc(g.cap, sizeof *g.name);
        g.line = calloc(g.cap, sizeof *g.line);
        assert(g.name && g.line);
        for (size_t i = 0; i < s->cap; i++)
            if (s->name[i])
                for (size_t j = (size_t)key_hash(s->name[i], "") & (g.cap - 1);; j = (j + 1) & (g.cap - 1))
                    if (!g.name[j]) {
                        g.name[j] = s->name[i];
                        g.line[j] = s->line[i];
                        break;
                    }
        g.n = s->n;
        free(s->name);
        free(s->line);
        *s = g;
    }
    size_t j = (size_t)key_hash(name, "") & (s->cap - 1);
    for (; s->name[j]; j = (j + 1) & (s->cap - 1))
        if (!strcmp(s->name[j], name))
            return s->line[j];
    s->name[j] = sim_str_dup(name);
    s->line[j] = line;
    s->n++;
    return 0;
}

static void sec_seen_fini(sec_seen *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->name[i]);
    free(s->name);
    free(s->line);
}

/* Parse INI text: [section] headers, key = value (or key: value) lines,
 * whole-line comments starting with ; or #, inline comments starting with
 * a ; that follows a space.  Leading space has no meaning (there are no
 * continuation lines).  One file sets a key once and opens a section
 * once.  Stops at the first error. */
static int load_text(sim_cfg *c, const char *text, const char *name, int depth,
                     const char **stack, sim_err *err)
{
    char *dir = dir_of(name);
    char *section = sim_str_dup(""), *buf = malloc(SIM_CFG_MAX_LINE);
    assert(buf);
    unsigned load = ++c->nloads;
    assert(load > 0 && "more than UINT_MAX loads");
    sec_seen seen = {0};
    int rc = SIM_OK, line = 0;
    const char *p = text;
    if (!strncmp(p, "\xEF\xBB\xBF", 3)) /* UTF-8 byte order mark */
        p += 3;
    while (*p && rc == SIM_OK) {
        line++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= SIM_CFG_MAX_LINE) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%d: line longer than %d bytes", name, line,
                             SIM_CFG_MAX_LINE - 1);
            break;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        p += nl ? len + 1 : len;
        if (!sim_utf8_valid(buf)) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%d: invalid UTF-8 (save the file as UTF-8)",
                             name, line);
            break;
        }
        char *s = trim(buf);
        if (!*s || *s == ';' || *s == '#')
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            char *rest = close ? trim(close + 1) : NULL;
            if (!close || (*rest && *rest != ';' && *rest != '#')) {
                rc = sim_err_set(err, SIM_EINPUT, "%s:%d: syntax error (expected [section])", name,
                                 line);
                break;
            }
            *close = '\0';
            char *sec = trim(s + 1);
            if (!*sec) {
                rc = sim_err_set(err, SIM_EINPUT, "%s:%d: empty section name", name, line);
                break;
            }
            if (!name_ok(sec, 1)) {
                rc = sim_err_set(err, SIM_EINPUT,
                                 "%s:%d: [%s]: section names use letters, digits, _, - and .",
                                 name, line, sec);
                break;
            }
            int first = sec_seen_add(&seen, sec, line);
            if (first) {
                rc = sim_err_set(err, SIM_EINPUT,
                                 "%s:%d: [%s] repeated (first at %s:%d): give each section once "
                                 "per file",
                                 name, line, sec, name, first);
                break;
            }
            free(section);
            section = sim_str_dup(sec);
            if (c->nhdr == c->hdr_cap) {
                c->hdr_cap = c->hdr_cap ? 2 * c->hdr_cap : 8;
                c->hdr = realloc(c->hdr, c->hdr_cap * sizeof *c->hdr);
                assert(c->hdr && "out of memory");
            }
            c->hdr[c->nhdr++] = (sim_cfg_entry){.section = sim_str_dup(sec),
                                                .origin = sim_str_dup(name), .line = line};
            continue;
        }
        char *eq = strpbrk(s, "=:");
        if (!eq) {
            rc = sim_err_set(err, SIM_EINPUT,
                             "%s:%d: syntax error (expected [section] or key = value)", name, line);
            break;
        }
        *eq = '\0';
        char *value = eq + 1;
        for (char *q = value; *q; q++) {
            if (*q == ';' && q > value && isspace((unsigned char)q[-1])) {
                *q = '\0';
                break;
            }
        }
        rc = add_line(c, section, trim(s), trim(value), name, dir, line, load, depth, stack, err);
    }
    sec_seen_fini(&seen);
    free(buf);
    free(section);
    free(dir);
    return rc;
}

int sim_cfg_load(sim_cfg *c, const char *path, sim_err *err)
{
    const char *stack[SIM_CFG_MAX_DEPTH];
    return load_file(c, path, 0, stack, NULL, err);
}

int sim_cfg_load_string(sim_cfg *c, const char *text, const char *name, sim_err *err)
{
    const char *stack[SIM_CFG_MAX_DEPTH];
    set_name(c, name);
    buf_append(&c->text, &c->text_len, &c->text_cap, text, strlen(text));
    return load_text(c, text, name, 0, stack, err);
}

const char *sim_cfg_name(const sim_cfg *c) { return c->name ? c->name : "(defaults)"; }

int sim_cfg_set(sim_cfg *c, const char *a, sim_err *err)
{
    return sim_cfg_set_as(c, a, "--set", err);
}

int sim_cfg_set_as(sim_cfg *c, const char *a, const char *origin, sim_err *err)
{
    const char *eq = strchr(a, '=');
    if (!eq || eq == a)
        return sim_err_set(err, SIM_EINPUT, "%s %s: expected SECTION.KEY=VALUE", origin, a);
    const char *dot = NULL;
    for (const char *p = a; p < eq; p++)
        if (*p == '.')
            dot = p;
    if (!dot || dot == a || dot + 1 == eq)
        return sim_err_set(err, SIM_EINPUT, "%s %s: expected SECTION.KEY=VALUE", origin, a);
    /* copy, then cut into section, key and value, each trimmed */
    char *buf = sim_str_dup(a);
    buf[dot - a] = '\0';
    buf[eq - a] = '\0';
    char *sec = trim(buf), *key = trim(buf + (dot - a) + 1), *val = trim(buf + (eq - a) + 1);
    if (!*sec || !*key) {
        free(buf);
        return sim_err_set(err, SIM_EINPUT, "%s %s: expected SECTION.KEY=VALUE", origin, a);
    }
    const char *bad = !name_ok(sec, 1)   ? "section names use letters, digits, _, - and ."
                      : !name_ok(key, 0) ? "key names use letters, digits, _ and -"
                      : !sim_utf8_valid(val) ? "invalid UTF-8 in the value"
                                             : NULL;
    if (bad) {
        free(buf);
        return sim_err_set(err, SIM_EINPUT, "%s %s: %s", origin, a, bad);
    }
    add_entry(c, sec, key, val, origin, 0, 0);
    free(buf);
    if (c->ov_len)
        buf_append(&c->overrides, &c->ov_len, &c->ov_cap, " ", 1);
    buf_append(&c->overrides, &c->ov_len, &c->ov_cap, a, strlen(a));
    return SIM_OK;
}

const sim_cfg_entry *sim_cfg_find(const sim_cfg *c, const char *section, const char *key)
{
    if (!c->nslot)
        return NULL;
    size_t i = *find_slot(c, section, key);
    return i ? &c->e[i - 1] : NULL;
}

size_t sim_cfg_count(const sim_cfg *c) { return c->n; }
const sim_cfg_entry *sim_cfg_at(const sim_cfg *c, size_t i)
{
    assert(i < c->n);
    return &c->e[i];
}
const char *sim_cfg_overrides(const sim_cfg *c) { return c->overrides; }
const char *sim_cfg_text(const sim_cfg *c) { return c->text; }

uint64_t sim_cfg_hash(const sim_cfg *c)
{
    return sim_str_fnv(c->overrides, strlen(c->overrides), sim_str_fnv_field(c->text, CFG_FNV0));
}

static int section_matches(const char *pattern, const char *section)
{
    size_t pl = strlen(pattern);
    if (pl >= 2 && !strcmp(pattern + pl - 2, ".*"))
        return !strncmp(pattern, section, pl - 1) && section[pl - 1] != '\0';
    return !strcmp(pattern, section);
}

size_t sim_cfg_sections(const sim_cfg *c, const char *pattern, const char **names, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!section_matches(pattern, c->e[i].section))
            continue;
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++)
            seen = !strcmp(names[j], c->e[i].section);
        if (!seen && k < max)
            names[k++] = c->e[i].section;
    }
    return k;
}

const sim_cfg_key *sim_cfg_spec(const sim_cfg_key *schema, size_t n, const char *section,
                                const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(schema[i].key, key) && section_matches(schema[i].section, section))
            return &schema[i];
    return NULL;
}

/* ---- value parsers ---- */

/* Does s (space skipped) start a decimal number: an optional sign, then a
 * digit or a point and a digit?  strtod also takes hexadecimal ("0x10"),
 * "inf" and "nan", which a config never means. */
static int decimal_start(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return 0;
    return isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]));
}

int sim_parse_double(const char *s, double *out, const char **why)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!*s) {
        *why = "empty value";
        return -1;
    }
    if (!decimal_start(s)) {
        *why = "not a number";
        return -1;
    }
    char *end;
    double v = strtod(s, &end);
    if (end == s) {
        *why = "not a number";
        return -1;
    }
    while (isspace((unsigned char)*end))
        end++;
    if (*end) {
        *why = "trailing characters after number";
        return -1;
    }
    /* ERANGE with a finite result is an underflow to a subnormal or zero:
     * accepted, so that every double formats to a text that parses back */
    if (!isfinite(v)) {
        *why = isnan(v) ? "NaN is not allowed" : "number out of range";
        return -1;
    }
    *out = v;
    return 0;
}

int sim_parse_long(const char *s, long *out, const char **why)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || !decimal_start(s)) {
        *why = "not an integer";
        return -1;
    }
    while (isspace((unsigned char)*end))
        end++;
    if (*end) {
        /* accept 1e6-style integers written as reals */
        double d;
        const char *w2;
        if (sim_parse_double(s, &d, &w2) == 0 && d == floor(d) && fabs(d) < 9e15) {
            *out = (long)d;
            return 0;
        }
        *why = "not an integer";
        return -1;
    }
    if (errno == ERANGE) {
        *why = "integer out of range";
        return -1;
    }
    *out = v;
    return 0;
}

/* Split "12.5ms" into number and unit suffix. */
static int num_unit(const char *s, double *v, char *unit, size_t ulen, const char **why)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!decimal_start(s)) {
        *why = "not a number";
        return -1;
    }
    char *end;
    double d = strtod(s, &end);
    if (end == s) {
        *why = "not a number";
        return -1;
    }
    if (!isfinite(d)) { /* underflow accepted, as in sim_parse_double */
        *why = isnan(d) ? "NaN is not allowed" : "number out of range";
        return -1;
    }
    while (isspace((unsigned char)*end))
        end++;
    size_t n = strlen(end);
    while (n && isspace((unsigned char)end[n - 1]))
        n--;
    if (n >= ulen) {
        *why = "unknown unit";
        return -1;
    }
    memcpy(unit, end, n);
    unit[n] = '\0';
    *v = d;
    return 0;
}

int sim_parse_duration(const char *s, double *seconds, const char **why)
{
    double v;
    char u[16];
    if (num_unit(s, &v, u, sizeof u, why))
        return -1;
    double f;
    if (!*u || !strcmp(u, "s"))
        f = 1;
    else if (!strcmp(u, "ms"))
        f = 1e-3;
    else if (!strcmp(u, "us"))
        f = 1e-6;
    else if (!strcmp(u, "ns"))
        f = 1e-9;
    else if (!strcmp(u, "min"))
        f = 60;
    else if (!strcmp(u, "h"))
        f = 3600;
    else {
        *why = "unknown time unit (use ns, us, ms, s, min, h)";
        return -1;
    }
    if (!isfinite(v * f)) {
        *why = "number out of range";
        return -1;
    }
    *seconds = v * f;
    return 0;
}

int sim_parse_rate(const char *s, double *per_second, const char **why)
{
    double v;
    char u[16];
    if (num_unit(s, &v, u, sizeof u, why))
        return -1;
    double f;
    if (!*u || !strcmp(u, "/s"))
        f = 1;
    else if (!strcmp(u, "/ms"))
        f = 1e3;
    else if (!strcmp(u, "/min"))
        f = 1.0 / 60;
    else if (!strcmp(u, "/h"))
        f = 1.0 / 3600;
    else {
        *why = "unknown rate unit (use /s, /ms, /min, /h)";
        return -1;
    }
    if (!isfinite(v * f)) {
        *why = "number out of range";
        return -1;
    }
    *per_second = v * f;
    return 0;
}

int sim_parse_bool(const char *s, int *out, const char **why)
{
    static const char *yes[] = {"1", "true", "yes", "on"};
    static const char *no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(s, no[i])) {
            *out = 0;
            return 0;
        }
    }
    *why = "expected true or false";
    return -1;
}

int sim_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 100;
    int d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int m = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < m)
                m = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < m)
                m = d[i - 1][j - 1] + cost;
            d[i][j] = m;
        }
    }
    return d[la][lb] > 100 ? 100 : d[la][lb];
}

/* ---- checking and getters ---- */

static void where(const sim_cfg_entry *e, char *buf, size_t len)
{
    if (!e)
        snprintf(buf, len, "default");
    else if (e->line > 0)
        snprintf(buf, len, "%s:%d", e->origin, e->line);
    else
        snprintf(buf, len, "%s", e->origin);
}

const char *sim_cfg_where(const sim_cfg *c, const char *section, const char *key, char *buf,
                          size_t len)
{
    where(sim_cfg_find(c, section, key), buf, len);
    return buf;
}

/* Is text a distribution spec?  On error fill err naming where/section.key. */
static int check_dist(const char *text, const char *loc, const char *section, const char *key,
                      sim_err *err)
{
    sim_dist d;
    char msg[256];
    if (sim_dist_parse(text, &d, msg, sizeof msg))
        return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: bad distribution '%s': %s", loc, section,
                           key, text, msg);
    sim_dist_fini(&d);
    return SIM_OK;
}

/* Parse text as the spec's type, range-check; on error fill err naming
 * where/section.key. */
static int parse_value(const sim_cfg_key *k, const char *section, const char *text,
                       const char *loc, double *num, sim_err *err)
{
    const char *why = NULL;
    double v = 0;
    int rc = 0;
    switch (k->type) {
    case SIM_CFG_NUM:
        rc = sim_parse_double(text, &v, &why);
        break;
    case SIM_CFG_INT: {
        long l;
        rc = sim_parse_long(text, &l, &why);
        v = (double)l;
        break;
    }
    case SIM_CFG_DUR:
        rc = sim_parse_duration(text, &v, &why);
        break;
    case SIM_CFG_RATE:
        rc = sim_parse_rate(text, &v, &why);
        break;
    case SIM_CFG_BOOL: {
        int b;
        rc = sim_parse_bool(text, &b, &why);
        v = b;
        break;
    }
    case SIM_CFG_ENUM: {
        rc = -1;
        why = "not one of the allowed values";
        const char *p = k->choices;
        size_t tl = strlen(text);
        while (p && *p) {
            const char *bar = strchr(p, '|');
            size_t l = bar ? (size_t)(bar - p) : strlen(p);
            if (l == tl && !strncmp(p, text, l)) {
                rc = 0;
                break;
            }
            p = bar ? bar + 1 : NULL;
        }
        if (rc)
            return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: '%s' is not one of %s", loc, section,
                               k->key, text, k->choices);
        break;
    }
    case SIM_CFG_DIST:
        if (check_dist(text, loc, section, k->key, err))
            return err->code;
        break;
    case SIM_CFG_STR:
        break;
    }
    if (rc)
        return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: '%s': %s", loc, section, k->key, text, why);
    if (k->type == SIM_CFG_NUM || k->type == SIM_CFG_INT || k->type == SIM_CFG_DUR ||
        k->type == SIM_CFG_RATE) {
        if (k->min < k->max && (v < k->min || v > k->max)) {
            /* ranges as A..B, the form --vary takes; integers in full */
            const char *f = k->type == SIM_CFG_INT ? "%.15g" : "%g";
            char lo[32], hi[32];
            snprintf(lo, sizeof lo, f, k->min);
            snprintf(hi, sizeof hi, f, k->max);
            return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: %s is out of range %s..%s%s%s", loc,
                               section, k->key, text, lo, hi, k->unit ? " " : "",
                               k->unit ? k->unit : "");
        }
        if (k->type == SIM_CFG_INT && (v > (double)(LONG_MAX / 2) || v < (double)(LONG_MIN / 2)))
            return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: integer out of range", loc, section,
                               k->key);
    }
    if (num)
        *num = v;
    return SIM_OK;
}

/* If the schema section pattern is closer to section than *bd, make it the
 * suggestion: a "prefix.*" pattern is compared with the part of section
 * before its first dot and suggested with section's instance name
 * ([stations.cpu] -> [station.cpu]; [station] -> [station.NAME]). */
static void suggest_section(const char *pattern, const char *section, char *best, size_t len,
                            int *bd)
{
    size_t pl = strlen(pattern);
    int d;
    if (pl >= 2 && !strcmp(pattern + pl - 2, ".*")) {
        const char *dot = strchr(section, '.');
        size_t sl = dot ? (size_t)(dot - section) : strlen(section);
        char prefix[128], given[128];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(pl - 2), pattern);
        snprintf(given, sizeof given, "%.*s", (int)sl, section);
        d = sim_edit_distance(prefix, given);
        if (d < *bd) {
            *bd = d;
            snprintf(best, len, "%s%s", prefix, dot && dot[1] ? dot : ".NAME");
        }
        return;
    }
    d = sim_edit_distance(pattern, section);
    if (d < *bd) {
        *bd = d;
        snprintf(best, len, "%s", pattern);
    }
}

/* A distribution value that names an entry of a [fit.*] section
 * ("fit.redis.paymentsession.save": section fit.redis.paymentsession, key
 * save) stands for that entry's value.  *text: the value to parse
 * (borrowed from c); SIM_EINPUT naming the reference when it is missing. */
static int dist_text(const sim_cfg *c, const char *value, const char *loc, const char *section,
                     const char *key, const char **text, sim_err *err)
{
    *text = value;
    if (strncmp(value, SIM_CFG_FIT_PREFIX, strlen(SIM_CFG_FIT_PREFIX)) || strchr(value, '('))
        return SIM_OK;
    const char *dot = strrchr(value, '.');
    char sec[256];
    /* "fit.KEY": section [fit], which holds the operations without a dot */
    if (!dot || !dot[1] || (size_t)(dot - value) >= sizeof sec)
        return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: '%s' is not fit.SECTION.KEY or fit.KEY",
                           loc, section, key, value);
    snprintf(sec, sizeof sec, "%.*s", (int)(dot - value), value);
    const sim_cfg_entry *e = sim_cfg_find(c, sec, dot + 1);
    if (!e)
        return sim_err_set(err, SIM_EINPUT,
                           "%s: %s.%s: '%s': no such fitted distribution (include the fragment "
                           "tfsim fit --config-out wrote)",
                           loc, section, key, value);
    *text = e->value;
    return SIM_OK;
}

/* SIM_EINPUT when section (not a fit.* library) is none of the schema's;
 * loc: where it was given. */
static int check_section(const char *section, const char *loc, const sim_cfg_key *schema,
                         size_t n, sim_err *err)
{
    if (!strncmp(section, SIM_CFG_FIT_PREFIX, strlen(SIM_CFG_FIT_PREFIX)) ||
        !strcmp(section, "fit"))
        return SIM_OK;
    for (size_t j = 0; j < n; j++)
        if (section_matches(schema[j].section, section))
            return SIM_OK;
    char best[256] = "";
    int bd = 100;
    for (size_t j = 0; j < n; j++)
        suggest_section(schema[j].section, section, best, sizeof best, &bd);
    if (*best && bd <= 3)
        return sim_err_set(err, SIM_EINPUT, "%s: [%s]: unknown section (did you mean [%s]?)", loc,
                           section, best);
    return sim_err_set(err, SIM_EINPUT, "%s: [%s]: unknown section", loc, section);
}

int sim_cfg_check(const sim_cfg *c, const sim_cfg_key *schema, size_t n, sim_err *err)
{
    for (size_t i = 0; i < c->nhdr; i++) {
        char loc[512];
        where(&c->hdr[i], loc, sizeof loc);
        if (check_section(c->hdr[i].section, loc, schema, n, err))
            return err->code;
    }
    for (size_t i = 0; i < c->n; i++) {
        const sim_cfg_entry *e = &c->e[i];
        char loc[512];
        where(e, loc, sizeof loc);
        if (!strncmp(e->section, SIM_CFG_FIT_PREFIX, strlen(SIM_CFG_FIT_PREFIX)) ||
            !strcmp(e->section, "fit")) {
            /* a library of fitted distributions: any key, a distribution */
            if (check_dist(e->value, loc, e->section, e->key, err))
                return err->code;
            continue;
        }
        /* (a section given by --set has no header) */
        int sec_known = 0;
        for (size_t j = 0; j < n && !sec_known; j++)
            sec_known = section_matches(schema[j].section, e->section);
        if (!sec_known && !*e->section)
            return sim_err_set(err, SIM_EINPUT, "%s: %s: key outside any [section]", loc, e->key);
        if (!sec_known && check_section(e->section, loc, schema, n, err))
            return err->code;
        const sim_cfg_key *k = sim_cfg_spec(schema, n, e->section, e->key);
        if (!k) {
            const char *best = NULL;
            int bd = 100;
            for (size_t j = 0; j < n; j++) {
                if (!section_matches(schema[j].section, e->section))
                    continue;
                int d = sim_edit_distance(schema[j].key, e->key);
                if (d < bd)
                    bd = d, best = schema[j].key;
            }
            if (best && bd <= 3)
                return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: unknown key (did you mean %s?)", loc,
                                   e->section, e->key, best);
            return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: unknown key", loc, e->section, e->key);
        }
        const char *text = e->value;
        if (k->type == SIM_CFG_DIST && dist_text(c, e->value, loc, e->section, e->key, &text, err))
            return err->code;
        if (parse_value(k, e->section, text, loc, NULL, err))
            return err->code;
    }
    return SIM_OK;
}

static int lookup(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                  const char *key, const sim_cfg_key **k, const char **text, char *loc,
                  size_t loclen, sim_err *err)
{
    *k = sim_cfg_spec(schema, n, section, key);
    assert(*k && "key missing from schema");
    const sim_cfg_entry *e = sim_cfg_find(c, section, key);
    where(e, loc, loclen);
    *text = e ? e->value : (*k)->def;
    if (!*text)
        return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: required key is missing",
                           sim_cfg_name(c), section, key);
    return SIM_OK;
}

int sim_cfg_num(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                const char *key, double *out, sim_err *err)
{
    const sim_cfg_key *k;
    const char *t;
    char loc[512];
    if (lookup(c, schema, n, section, key, &k, &t, loc, sizeof loc, err))
        return err->code;
    return parse_value(k, section, t, loc, out, err);
}

int sim_cfg_int(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                const char *key, long *out, sim_err *err)
{
    double v;
    int rc = sim_cfg_num(c, schema, n, section, key, &v, err);
    if (rc == SIM_OK)
        *out = (long)v;
    return rc;
}

int sim_cfg_bool(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                 const char *key, int *out, sim_err *err)
{
    double v;
    int rc = sim_cfg_num(c, schema, n, section, key, &v, err);
    if (rc == SIM_OK)
        *out = v != 0;
    return rc;
}

int sim_cfg_str(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                const char *key, const char **out, sim_err *err)
{
    const sim_cfg_key *k;
    const char *t;
    char loc[512];
    if (lookup(c, schema, n, section, key, &k, &t, loc, sizeof loc, err))
        return err->code;
    if (parse_value(k, section, t, loc, NULL, err))
        return err->code;
    *out = t;
    return SIM_OK;
}

int sim_cfg_dist(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                 const char *key, sim_dist *d, sim_err *err)
{
    const sim_cfg_key *k;
    const char *txt;
    char loc[512], msg[256];
    if (lookup(c, schema, n, section, key, &k, &txt, loc, sizeof loc, err))
        return err->code;
    assert(k->type == SIM_CFG_DIST && "sim_cfg_dist on a key that is not a distribution");
    if (dist_text(c, txt, loc, section, key, &txt, err))
        return err->code;
    if (sim_dist_parse(txt, d, msg, sizeof msg))
        return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: %s", loc, section, key, msg);
    return SIM_OK;
}
