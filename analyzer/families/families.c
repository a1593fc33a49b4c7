/* SPDX-License-Identifier: MIT */
/* The built-in family table (pt_family.h): made from PT_FAMILIES, nothing
 * else. A program with more families (a test's) hands pt_families_use a
 * table of its own. A paratrace built with a family from outside the
 * product (cmake/extra_family.cmake) compiles this file again with
 * -DPT_FAMILY_EXTRA=<name>: that family comes last. */
#include "pt_family.h"

#define PT_FAMILY_DECLARE(name) extern const pt_family pt_family_##name;

#ifdef PT_FAMILY_EXTRA
/* name expanded first: pt_family_##name must paste the family's name */
#define PT_FAMILY_EXPANDED(X, name) X(name)
#define PT_FAMILIES_BUILT(X) PT_FAMILIES(X) PT_FAMILY_EXPANDED(X, PT_FAMILY_EXTRA)
#else
#define PT_FAMILIES_BUILT(X) PT_FAMILIES(X)
#endif
PT_FAMILIES_BUILT(PT_FAMILY_DECLARE)

#define PT_FAMILY_ENTRY(name) &pt_family_##name,
const pt_family *const pt_family_builtin[PT_MAX_FAMILIES + 1] = {
	PT_FAMILIES_BUILT(PT_FAMILY_ENTRY) NULL};
