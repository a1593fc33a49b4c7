/* SPDX-License-Identifier: MIT */
/* The family table (pt_family.h): made from PT_FAMILIES, nothing else. A
 * build with more families (a test's) links a table of its own instead of
 * this file's. */
#include "pt_family.h"

#define PT_FAMILY_DECLARE(name) extern const pt_family pt_family_##name;
PT_FAMILIES(PT_FAMILY_DECLARE)

#define PT_FAMILY_ENTRY(name) &pt_family_##name,
const pt_family *const pt_families[PT_MAX_FAMILIES + 1] = {PT_FAMILIES(PT_FAMILY_ENTRY) NULL};
