/* sim_str: the string and byte helpers every layer shares.
 *
 * Role: one heap copy of a C string, one bounded format that shows where
 * it cut (the notes of predict and of a series), and one 64-bit FNV-1a
 * hash of bytes, so that no module keeps a copy of its own (five kept a
 * dupstr, four the hash).  strdup is POSIX, not C17: this is the project's.
 * Invariants: sim_str_dup never returns NULL for a string (out of memory
 * is an assertion, as for every allocation of the kernel); the hash of the
 * same bytes from the same start is the same on every machine (bytes, not
 * host integers, go in: callers that hash numbers hash their bytes or
 * their text, and say which).
 * Cost: O(n) in the bytes, one allocation per copy.
 */
#ifndef SIM_STR_H
#define SIM_STR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* FNV-1a's 64-bit offset basis: the start of a fresh hash. */
#define SIM_STR_FNV0 14695981039346656037ull

/* A heap copy of s, owned by the caller (free); NULL when s is NULL. */
char *sim_str_dup(const char *s);

/* Formats fmt with ap into buf (len bytes, len >= 4, borrowed), as
 * vsnprintf does, but a text that does not fit ends in "..." (cut at the
 * start of a UTF-8 character) so that a reader sees it was cut.  Returns
 * 1 when the text was cut, 0 when it fits. */
int sim_str_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* FNV-1a over the n bytes at p (borrowed), continuing from h (SIM_STR_FNV0
 * for a fresh hash). */
uint64_t sim_str_fnv(const void *p, size_t n, uint64_t h);

/* One text field of a key: FNV-1a over the bytes of s (borrowed; NULL is
 * the empty field), then the byte 0xff, which no UTF-8 text holds, so that
 * ("ab", "c") and ("a", "bc") hash apart. */
uint64_t sim_str_fnv_field(const char *s, uint64_t h);

#endif
