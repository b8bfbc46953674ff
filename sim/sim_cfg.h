/* sim_cfg: scenario configuration from INI files with includes and
 * command-line overrides, checked against a schema table.
 *
 * Role: load `key = value` pairs grouped in [sections] from one file and the
 * files it includes (`include = base.ini`, relative to the including file,
 * allowed at top level or in any section), then apply `--set
 * section.key=value` overrides.  Syntax: `[name]` starts a section (an
 * included file starts outside any section); `key = value` or `key: value`
 * (key and value trimmed; the value may be empty); lines starting with ; or
 * # are comments, and so is the rest of a line from a ; that follows a
 * space; leading space has no meaning (no continuation lines); a UTF-8 byte
 * order mark is skipped.  Anything else is a syntax error at its line.
 * Section names use letters, digits, _, - and .; key names letters,
 * digits, _ and -; the text must be UTF-8.  Within one file a key is set
 * once and a section opened once (an error names both lines); a file that
 * includes another may set the included file's keys again, and --set
 * overrides anything: later assignments win; an include may not set again
 * a key its including file set above it (an error: the file's own value
 * would be lost).  Every entry remembers its origin (file and line,
 * or "--set") so that an error names file:line: section.key.  A schema (a
 * const table of sim_cfg_key owned by the model) says which sections and
 * keys exist, their type, unit, default and range; sim_cfg_check() rejects
 * unknown ones with a did-you-mean.  Sections named fit.*
 * (SIM_CFG_FIT_PREFIX) are a library of named distributions with any keys
 * (what `tfsim fit` writes; [fit] itself holds operations without a dot);
 * a distribution key may name one of them as "fit.SECTION.KEY" (or
 * "fit.KEY" for [fit]).
 *
 * Invariants: include depth <= SIM_CFG_MAX_DEPTH, no include cycles, lines
 * shorter than SIM_CFG_MAX_LINE bytes, no NUL bytes.  The raw text of every
 * file read is kept (for the run manifest).
 * Cost: lookups go through a hash of (section, key): O(1); loading is
 * O(file size).
 */
#ifndef SIM_CFG_H
#define SIM_CFG_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_err.h"

#define SIM_CFG_MAX_DEPTH 16
#define SIM_CFG_MAX_LINE 4096
/* Sections whose names start with this hold named distributions (any
 * key; what `tfsim fit --config-out` writes); a distribution key may name
 * one as "fit.SECTION.KEY" instead of giving a spec. */
#define SIM_CFG_FIT_PREFIX "fit."

typedef enum sim_cfg_type {
    SIM_CFG_NUM,   /* real number, optional unit suffix per spec */
    SIM_CFG_INT,   /* integer */
    SIM_CFG_DUR,   /* duration: 5ms, 20us, 1.5s, 2min; bare number = seconds */
    SIM_CFG_RATE,  /* per second: 900, 900/s, 54000/min */
    SIM_CFG_DIST,  /* distribution spec, see sim_dist.h */
    SIM_CFG_STR,   /* free text */
    SIM_CFG_BOOL,  /* true/false/yes/no/on/off/1/0 */
    SIM_CFG_ENUM   /* one of the '|'-separated words in choices */
} sim_cfg_type;

/* One schema row.  section may end in ".*" to match any instance name
 * ("station.*" matches "station.cpu"). */
typedef struct sim_cfg_key {
    const char *section;
    const char *key;
    sim_cfg_type type;
    const char *def;      /* default value as text; NULL = required */
    double min, max;      /* inclusive range for NUM/INT/DUR/RATE (min<max) */
    const char *choices;  /* ENUM: "a|b|c" */
    const char *unit;     /* for the reference: "s", "1/s", "requests", ... */
    const char *help;     /* one line for the config reference */
} sim_cfg_key;

typedef struct sim_cfg_entry {
    char *section;
    char *key;
    char *value;
    char *origin;  /* file path, or "--set" */
    int line;      /* 0 for --set */
} sim_cfg_entry;

typedef struct sim_cfg sim_cfg;

/* New empty configuration, owned by the caller; free with sim_cfg_free. */
sim_cfg *sim_cfg_new(void);
void sim_cfg_free(sim_cfg *c);

/* Load a file (and its includes).  Returns SIM_OK or SIM_EINPUT with
 * "file:line: message" in err. */
int sim_cfg_load(sim_cfg *c, const char *path, sim_err *err);

/* Load INI text held in memory; name is used in messages and as the base
 * for relative includes (its directory). */
int sim_cfg_load_string(sim_cfg *c, const char *text, const char *name, sim_err *err);

/* Apply an override "section.key=value" (the section may contain dots; the
 * key is the part after the last dot before '=').  SIM_EINPUT on bad form. */
int sim_cfg_set(sim_cfg *c, const char *assignment, sim_err *err);

/* The first file loaded (or the name given to the first text loaded), for
 * messages about the config as a whole; "(defaults)" when none (borrowed). */
const char *sim_cfg_name(const sim_cfg *c);

/* Is s valid UTF-8 (no overlong forms, surrogates or code points above
 * U+10FFFF)? */
int sim_utf8_valid(const char *s);

/* The same, recording origin (a flag such as "--vary" or "--reps", kept
 * borrowed-by-copy) as where the value came from, for messages. */
int sim_cfg_set_as(sim_cfg *c, const char *assignment, const char *origin, sim_err *err);

/* Newest entry for section/key, or NULL.  Borrowed: valid until c is freed. */
const sim_cfg_entry *sim_cfg_find(const sim_cfg *c, const char *section, const char *key);

/* All entries in load order; borrowed. */
size_t sim_cfg_count(const sim_cfg *c);
const sim_cfg_entry *sim_cfg_at(const sim_cfg *c, size_t i);

/* Overrides applied so far, joined by ' ' (borrowed, "" when none). */
const char *sim_cfg_overrides(const sim_cfg *c);
/* Raw text of all files read, each preceded by "# file: PATH\n" (borrowed). */
const char *sim_cfg_text(const sim_cfg *c);
/* FNV-1a 64-bit hash of sim_cfg_text() followed by the overrides. */
uint64_t sim_cfg_hash(const sim_cfg *c);

/* Does any entry use a section that matches the pattern? (exact, or
 * "prefix.*").  Fills names (borrowed) of distinct matching sections in
 * order of first appearance, up to max; returns how many. */
size_t sim_cfg_sections(const sim_cfg *c, const char *pattern, const char **names, size_t max);

/* Check every entry against the schema: unknown sections and keys (with a
 * did-you-mean) and values that do not parse or are out of range. */
int sim_cfg_check(const sim_cfg *c, const sim_cfg_key *schema, size_t n, sim_err *err);

/* Schema row for section/key, or NULL. */
const sim_cfg_key *sim_cfg_spec(const sim_cfg_key *schema, size_t n, const char *section,
                                const char *key);

/* Typed getters: value of section.key from the newest entry, else the
 * schema default.  Errors (SIM_EINPUT) name the origin and key.  The spec
 * must exist in the schema (a bug otherwise: assertion). */
int sim_cfg_num(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                const char *key, double *out, sim_err *err);
int sim_cfg_int(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                const char *key, long *out, sim_err *err);
int sim_cfg_bool(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                 const char *key, int *out, sim_err *err);
/* String, enum and dist values: *out is borrowed (entry or schema). */
int sim_cfg_str(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                const char *key, const char **out, sim_err *err);
/* Distribution value: parsed into d (caller storage; on success the
 * caller must sim_dist_fini it).  Errors name the origin and key. */
struct sim_dist;
int sim_cfg_dist(const sim_cfg *c, const sim_cfg_key *schema, size_t n, const char *section,
                 const char *key, struct sim_dist *d, sim_err *err);
/* Where a value came from, for messages: "file:line" or "--set" or
 * "default" (written into buf). */
const char *sim_cfg_where(const sim_cfg *c, const char *section, const char *key, char *buf,
                          size_t len);

/* Parsers used by the getters, exported for other readers (CSV, flags).
 * Return 0 on success, -1 with a reason in *why (static string). */
int sim_parse_double(const char *s, double *out, const char **why);
int sim_parse_long(const char *s, long *out, const char **why);
int sim_parse_duration(const char *s, double *seconds, const char **why);
int sim_parse_rate(const char *s, double *per_second, const char **why);
int sim_parse_bool(const char *s, int *out, const char **why);

/* Levenshtein distance, capped at 100. */
int sim_edit_distance(const char *a, const char *b);

#endif
