/* SPDX-License-Identifier: MIT */
/* The manual API of include/paratrace.h: function scopes get function ids
 * from the same space as instrumented modules (so the analyzer treats them
 * alike); event types and value names are interned by name once per
 * process and defined in the process log. */
#define _GNU_SOURCE
#include "core.h"

#include <paratrace.h>
#include <paratrace/abi.h>

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

typedef struct api_type {
	char *name;
	uint32_t id, flags;
	struct api_type *next;
} api_type;

typedef struct api_value_name {
	uint32_t type;
	int64_t value;
	char *name;
	struct api_value_name *next;
} api_value_name;

typedef struct api_func {
	paratrace_func_desc *desc;
	uint64_t module_base;
	struct api_func *next;
} api_func;

static pt_spin pt_api_lock;
static api_type *pt_types;
static uint32_t pt_ntypes;
static api_value_name *pt_value_names;
static api_func *pt_api_funcs;

static char *dup_name(const char *s)
{
	size_t n = strnlen(s ? s : "", 1023);
	char *d = pt_bump_alloc(n + 1);
	if (d) {
		memcpy(d, s ? s : "", n);
		d[n] = '\0';
	}
	return d;
}

static void emit_type(const api_type *t)
{
	pt_rec_user_type rec = {t->id, t->flags};
	pt_process_emit(PT_REC_USER_TYPE, 0, &rec, sizeof rec, t->name, strlen(t->name) + 1);
}

static void emit_value_name(const api_value_name *v)
{
	pt_rec_user_event rec = {v->type, 0, v->value};
	pt_process_emit(PT_REC_USER_VALUE_NAME, 0, &rec, sizeof rec, v->name, strlen(v->name) + 1);
}

/* Type id for `name` (interned: every call site naming the same type gets
 * the same id). 0 on failure. */
static uint32_t intern_type(const char *name, uint32_t flags)
{
	pt_spin_lock(&pt_api_lock);
	api_type *t;
	for (t = pt_types; t; t = t->next)
		if (!strcmp(t->name, name ? name : ""))
			break;
	if (!t && (t = pt_bump_alloc(sizeof *t)) && (t->name = dup_name(name))) {
		t->id = ++pt_ntypes;
		t->flags = flags;
		t->next = pt_types;
		pt_types = t;
		emit_type(t);
	}
	uint32_t id = t && t->name ? t->id : 0;
	pt_spin_unlock(&pt_api_lock);
	return id;
}

static void name_value(uint32_t type, int64_t value, const char *name)
{
	pt_spin_lock(&pt_api_lock);
	api_value_name *v;
	for (v = pt_value_names; v; v = v->next)
		if (v->type == type && v->value == value)
			break;
	if (!v && (v = pt_bump_alloc(sizeof *v)) && (v->name = dup_name(name))) {
		v->type = type;
		v->value = value;
		v->next = pt_value_names;
		pt_value_names = v;
		emit_value_name(v);
	}
	pt_spin_unlock(&pt_api_lock);
}

static uint32_t type_id(paratrace_type_desc *d)
{
	uint32_t id = __atomic_load_n(&d->id, __ATOMIC_ACQUIRE);
	if (pt_likely(id))
		return id;
	id = intern_type(d->name, d->flags & PT_USER_TYPE_SCOPE);
	__atomic_store_n(&d->id, id, __ATOMIC_RELEASE);
	return id;
}

PT_EXPORT void paratrace_user_event(paratrace_type_desc *d, int64_t value, const char *value_name)
{
	if (!d)
		return;
	int saved = errno;
	pt_thread *t = pt_enter();
	if (t) {
		uint32_t id = type_id(d);
		if (id) {
			if (value_name)
				name_value(id, value, value_name);
			pt_rec_user_event ev = {id, 0, value};
			pt_emit(t, PT_REC_USER_EVENT, 0, &ev, sizeof ev);
		}
		pt_leave(t);
	}
	errno = saved;
}

/* The function's id, defined at its first use. Called inside the
 * runtime's region (pt_enter), as every holder of pt_api_lock is: a signal
 * handler that interrupts a holder finds the thread inside and drops its
 * event, instead of waiting for a lock its own thread holds. */
static uint32_t func_id(paratrace_func_desc *f)
{
	pt_spin_lock(&pt_api_lock);
	uint32_t id = f->id;
	api_func *a;
	if (!id && (a = pt_bump_alloc(sizeof *a)) && (id = pt_func_ids_alloc(1))) {
		Dl_info info;
		struct link_map *lm = NULL;
		a->desc = f;
		a->module_base =
			dladdr1(f, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm ? lm->l_addr : 0;
		a->next = pt_api_funcs;
		pt_api_funcs = a;
		pt_emit_func_def(id, f->name, f->file, f->line, a->module_base);
		__atomic_store_n(&f->id, id, __ATOMIC_RELEASE);
	}
	pt_spin_unlock(&pt_api_lock);
	return id;
}

PT_EXPORT void paratrace_func_begin(paratrace_func_desc *f)
{
	if (!f || !pt_tracing())
		return;
	uint32_t id = __atomic_load_n(&f->id, __ATOMIC_ACQUIRE);
	if (pt_unlikely(!id)) {
		int saved = errno;
		pt_thread *t = pt_enter();
		if (t) {
			id = func_id(f);
			pt_leave(t);
		} else {
			pt_note_nested_event();
		}
		errno = saved;
	}
	if (id)
		__paratrace_func_enter(id);
}

PT_EXPORT void paratrace_func_end(paratrace_func_desc *f)
{
	uint32_t id = f ? __atomic_load_n(&f->id, __ATOMIC_ACQUIRE) : 0;
	if (id)
		__paratrace_func_exit(id);
}

PT_EXPORT void paratrace_thread_name(const char *name)
{
	if (!name)
		return;
	int saved = errno;
	pt_thread *t = pt_enter();
	if (t) {
		/* a longer name is cut: its first 255 bytes, terminated here
		 * (nothing of it past them is read) */
		pt_emit2(t, PT_REC_THREAD_NAME, 0, name, strnlen(name, 255), "", 1);
		pt_process_thread_name(pt_thread_tid(t), name, 255);
		pt_leave(t);
	}
	errno = saved;
}

PT_EXPORT void paratrace_counter(const char *name)
{
	if (!name)
		return;
	int saved = errno;
	pt_thread *t = pt_enter();
	if (t) {
		if (pt_counter_manual(t, name) != 0) {
			char type[128];
			snprintf(type, sizeof type, "PT_COUNTER %s", name);
			uint32_t id = intern_type(type, 0);
			if (id) {
				pt_rec_user_event ev = {id, 0, 1};
				pt_emit(t, PT_REC_USER_EVENT, 0, &ev, sizeof ev);
			}
		}
		pt_leave(t);
	}
	errno = saved;
}

/* Fork child: the types, value names and functions interned so far, in
 * the child's new process log. */
static void api_fork_child(void)
{
	pt_spin_reset(&pt_api_lock);
	for (api_type *t = pt_types; t; t = t->next)
		emit_type(t);
	for (api_value_name *v = pt_value_names; v; v = v->next)
		emit_value_name(v);
	for (api_func *a = pt_api_funcs; a; a = a->next)
		pt_emit_func_def(a->desc->id, a->desc->name, a->desc->file, a->desc->line,
				 a->module_base);
}

PT_SUBSYSTEM(api_part) = {
	.name = "api",
	.order = PT_ORDER_API,
	.fork_child = api_fork_child,
};
