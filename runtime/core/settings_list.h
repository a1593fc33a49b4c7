/* SPDX-License-Identifier: MIT */
/* Every runtime setting (a PARATRACE_* environment variable), each declared
 * once in the settings.inc of the part it belongs to. No include guard: a
 * reader defines PT_SETTING, includes this file and undefines it again
 * (the struct pt_config, the parser's table in config.c, the table of
 * README.md and docs/RUNTIME.md written by pt_settings_doc). Parts that
 * the build may leave out still declare theirs, so that the core can say
 * a setting is ignored rather than not understood.
 *
 *   PT_SETTING(kind, field, VARIABLE, default, lo, hi, words, expect,
 *              shown default, meaning)
 *
 * kind     how the value is read (config.c, pt_setting_parse):
 *   BOOL      1/0, yes/no, true/false, on/off (any case) -> int 1/0; the
 *             word in `words`, if any, gives -1
 *   INT       decimal from lo to hi -> int
 *   SIZE      bytes, or with K, M, G (1024s; optional B/iB), lo to hi ->
 *             uint64_t; with `words`, 0 also (what it means: `words`)
 *   DURATION  ns, or with us, ms, s, lo to hi -> uint64_t (ns); with
 *             `words`, 0 also, and the BOOL words for off
 *   ENUM      one of `words` ("a|b|c", exact case) -> int, its index
 *   WORD      one of `words` -> const char *, the value itself
 *   LIST      comma-separated `words` -> unsigned, bit i for word i; the
 *             word "all" for every other one; at least one
 *   STRING    any text -> const char *, NULL when unset or empty
 *   PATH      a non-empty text shorter than hi -> const char *
 * default  the field's value when the variable is unset or empty
 * expect   what the one-line error says was expected
 * shown default, meaning: the two cells of the documentation's table
 */
#include "../core/settings.inc"
#include "../counters/settings.inc"
#include "../stacks/settings.inc"
#include "../gpu/settings.inc"
#include "../omp/settings.inc"
#include "../mpi/settings.inc"
#include "../io/settings.inc"
#include "../memory/settings.inc"
#include "../offcpu/settings.inc"
