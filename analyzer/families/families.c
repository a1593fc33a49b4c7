/* SPDX-License-Identifier: MIT */
/* The built-in family table (pt_family.h): made from PT_FAMILIES, nothing
 * else. A program with more families (a test's) hands pt_families_use a
 * table of its own. */
#include "pt_family.h"

#define PT_FAMILY_DECLARE(name) extern const pt_family pt_family_##name;
PT_FAMILIES(PT_FAMILY_DECLARE)

#define PT_FAMILY_ENTRY(name) &pt_family_##name,
const pt_family *const pt_family_builtin[PT_MAX_FAMILIES + 1] = {PT_FAMILIES(PT_FAMILY_ENTRY) NULL};
