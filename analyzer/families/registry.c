/* SPDX-License-Identifier: MIT */
/* Which families the outputs ask (pt_family.h). */
#include "pt_family.h"

#include <stddef.h>

static const pt_family *const no_families[1] = {NULL};

const pt_family *const *pt_families = no_families;

void pt_families_use(const pt_family *const *table)
{
	pt_families = table ? table : no_families;
}
