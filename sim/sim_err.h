/* sim_err: the error channel for failures that come from outside the
 * program (config files, CSV files, databases, servers).
 *
 * Role: a caller-owned context struct that a library function fills when it
 * returns a non-zero status, in the style of hiredis' err/errstr.  Bugs are
 * not reported here: they hit assert(), which stays on in release builds.
 *
 * Invariants: code == SIM_OK iff msg[0] == '\0' after sim_err_clear().  A
 * second sim_err_set() keeps the first message (the root cause) unless the
 * caller clears it.  No allocation; cost O(length of message).
 */
#ifndef SIM_ERR_H
#define SIM_ERR_H

#include <stddef.h>

enum sim_status {
    SIM_OK = 0,
    SIM_EFAIL = 1,  /* runtime failure: server down, I/O error, limit hit */
    SIM_EINPUT = 2  /* bad input: config, CSV, flag; message names file:line: key */
};

#define SIM_ERR_MSG_MAX 1024

typedef struct sim_err {
    int code;                   /* enum sim_status */
    char msg[SIM_ERR_MSG_MAX];  /* human-readable, no trailing newline */
} sim_err;

void sim_err_clear(sim_err *e);

/* Record a failure.  Returns code so that callers can write
 * `return sim_err_set(e, SIM_EINPUT, "...")`.  e may be NULL (then only the
 * code is returned).  If e already holds an error it is kept. */
int sim_err_set(sim_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* sim_err_set with the message "WHERE: message": what failed named first
 * (a server's address, a file).  where is borrowed; e may be NULL. */
int sim_err_set_at(sim_err *e, int code, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prefix the message already in e with more context ("file.ini: ..."). */
void sim_err_prefix(sim_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
