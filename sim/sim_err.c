#include "sim/sim_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sim_err_clear(sim_err *e)
{
    if (e) {
        e->code = SIM_OK;
        e->msg[0] = '\0';
    }
}

int sim_err_set(sim_err *e, int code, const char *fmt, ...)
{
    if (!e || e->code != SIM_OK)
        return e ? e->code : code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->code = code;
    return code;
}

int sim_err_set_at(sim_err *e, int code, const char *where, const char *fmt, ...)
{
    if (!e || e->code != SIM_OK)
        return e ? e->code : code;
    char msg[SIM_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sim_err_set(e, code, "%s: %s", where, msg);
}

void sim_err_prefix(sim_err *e, const char *fmt, ...)
{
    if (!e)
        return;
    char pre[SIM_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    size_t pl = strlen(pre), ol = strlen(e->msg);
    if (pl >= sizeof e->msg)
        pl = sizeof e->msg - 1;
    if (pl + ol >= sizeof e->msg)
        ol = sizeof e->msg - 1 - pl;
    memmove(e->msg + pl, e->msg, ol);
    memcpy(e->msg, pre, pl);
    e->msg[pl + ol] = '\0';
}
