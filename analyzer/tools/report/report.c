/* SPDX-License-Identifier: MIT */
/* The families' sections of the report, in the order they print (report.h). */
#include "report.h"

void pt_report_sections(unsigned in, void (*add)(void *arg, const pf_section *s), void *arg)
{
	for (int last = 0; last < 2; last++)
		for (size_t i = 0; i < pt_nfamilies(); i++) {
			const pf_family *r = pt_families[i]->report;
			for (size_t k = 0; r && k < PF_MAX_SECTIONS && r->sections[k].tool; k++)
				if ((r->sections[k].in & in) && !!r->sections[k].last == last)
					add(arg, &r->sections[k]);
		}
}
