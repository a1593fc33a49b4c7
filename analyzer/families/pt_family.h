/* SPDX-License-Identifier: MIT */
/* A family is one kind of thing the tracer sees besides functions, threads
 * and locks (counters and samples, a GPU API, OpenMP, MPI). Each family
 * lives in one folder, analyzer/families/<family>/: its model (what its
 * outputs share) and one descriptor, a pt_family, that every output asks.
 * No output names a family; each one walks pt_families and calls the part
 * of each family it knows:
 *
 *   paraver    Paraver events, states, .pcf labels, row labels,
 *              communications, the main view      (tools/paraver/pv.h)
 *   report     the profile's sections: inside the profile's pass, or
 *              tools of their own beside it, in text, CSV, JSON, HTML
 *                                                 (tools/report/report.h)
 *   timeline   slices, flows and counters of the Chrome and Perfetto
 *              exports                            (tools/timeline/timeline.h)
 *   plot       device rows of `plot` and report --html (tools/plot/plot.h)
 *   otf2       events and definitions of the OTF2 archive (tools/otf2/ot.h)
 *
 * Any part may be NULL. A part's hooks run in the order of pt_families,
 * the order of PT_FAMILIES below: the order of the families' lines and
 * sections in every output.
 *
 * Adding a family: a folder analyzer/families/<name>/ (picked up by the
 * folder's CMakeLists glob) defining `const pt_family pt_family_<name>`,
 * and its name in PT_FAMILIES. A family built outside the product
 * (cmake/extra_family.cmake, tests/toy/) comes last in its own paratrace's
 * table instead (families.c, PT_FAMILY_EXTRA). */
#ifndef PT_FAMILY_H
#define PT_FAMILY_H

#include <stddef.h>

struct pv_family;
struct pf_family;
struct tl_family;
struct pl_family;
struct ot_family;

typedef struct pt_family {
	const char *name;
	const struct pv_family *paraver;
	const struct pf_family *report;
	const struct tl_family *timeline;
	const struct pl_family *plot;
	const struct ot_family *otf2; /* NULL where the OTF2 library is not built in */
	/* Lock types (enum pt_lock_type) of this family's ([lock_first,
	 * lock_last]; none when lock_name is NULL): their waits are the
	 * core's, their events and states the family's (the Paraver writer's
	 * core leaves them out); lock_name says what the outputs call one
	 * ("critical"). */
	unsigned lock_first, lock_last;
	const char *(*lock_name)(unsigned type);
} pt_family;

/* The families, in the order every output shows them: the one place a
 * family is registered (families.c makes pt_family_builtin from it). */
#define PT_FAMILIES(X) X(counters) X(gpu) X(openmp) X(mpi) X(io) X(memory) X(offcpu) X(waits)

#define PT_MAX_FAMILIES 12
/* The built-in families (families.c), NULL-terminated. */
extern const pt_family *const pt_family_builtin[PT_MAX_FAMILIES + 1];

/* The families the outputs ask, NULL-terminated, at most PT_MAX_FAMILIES
 * (registry.c): none until the program that runs the tools says which
 * (the CLI: pt_family_builtin; a test: a table of its own). The outputs
 * read this pointer and never name a family or the table of them, so the
 * families, which write through the outputs' interfaces, sit above the
 * outputs and not in a circle with them. */
extern const pt_family *const *pt_families;
void pt_families_use(const pt_family *const *table);

static inline size_t pt_nfamilies(void)
{
	size_t n = 0;
	while (n < PT_MAX_FAMILIES && pt_families[n])
		n++;
	return n;
}

/* The family whose lock type this is, or NULL. */
static inline const pt_family *pt_family_of_lock(unsigned type)
{
	for (size_t i = 0; i < PT_MAX_FAMILIES && pt_families[i]; i++) {
		const pt_family *f = pt_families[i];
		if (f->lock_name && type >= f->lock_first && type <= f->lock_last)
			return f;
	}
	return NULL;
}

/* The name a family gives a lock type, or NULL. */
static inline const char *pt_family_lock_name(unsigned type)
{
	const pt_family *f = pt_family_of_lock(type);
	return f ? f->lock_name(type) : NULL;
}

#endif
