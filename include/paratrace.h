/* SPDX-License-Identifier: MIT */
/* paratrace manual instrumentation API, for C and C++.
 *
 * Everything here compiles to nothing unless PARATRACE_ENABLED is defined
 * to a non-zero value. With it, every macro calls libtrace.so through weak
 * symbols: a program built with the API runs untraced (one load and one
 * not-taken branch per macro) when libtrace.so is not preloaded, and
 * needs no extra link flags.
 *
 *   PT_FUNCTION();                 this function, from here to its end, as a
 *                                  traced function (FUNC_ENTER/EXIT, named)
 *   PT_SCOPE("phase", 2);          event type "phase" = 2 until the end of the
 *                                  enclosing block, then 0
 *   PT_SCOPE_UPDATE("phase", 3);   type "phase" = 3 from now on (in a scope)
 *   PT_SCOPE_UPDATE("phase", 3, "solve");  ... and value 3 is named "solve"
 *   PT_EVENT("iterations", n);     one event of type "iterations" with value n
 *   PT_COUNTER("page-faults");     read a performance counter by name now
 *   PT_THREAD_NAME("worker");      name the calling thread in the trace
 *
 * Type names and value names are registered once per process (USER_TYPE,
 * USER_VALUE_NAME records); the analyzer maps them to Paraver event types.
 * Names must be string literals or strings that live as long as the program.
 * See docs/RUNTIME.md.
 */
#ifndef PARATRACE_H
#define PARATRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One per call site, static; `id` is assigned by the runtime on first use. */
typedef struct paratrace_func_desc {
	const char *name;
	const char *file;
	uint32_t line;
	uint32_t id; /* 0 = not yet registered (written by the runtime) */
} paratrace_func_desc;

typedef struct paratrace_type_desc {
	const char *name;
	uint32_t flags; /* 1 = scope (value 0 closes it) */
	uint32_t id;    /* 0 = not yet registered (written by the runtime) */
} paratrace_type_desc;

/* Implemented by libtrace.so (weak here: absent when it is not loaded). */
extern void paratrace_func_begin(paratrace_func_desc *f) __attribute__((weak));
extern void paratrace_func_end(paratrace_func_desc *f) __attribute__((weak));
extern void paratrace_user_event(paratrace_type_desc *t, int64_t value,
				 const char *value_name) __attribute__((weak));
extern void paratrace_counter(const char *name) __attribute__((weak));
extern void paratrace_thread_name(const char *name) __attribute__((weak));

#ifdef __cplusplus
}
#endif

#if defined(PARATRACE_ENABLED) && PARATRACE_ENABLED

#define PT__CAT2(a, b) a##b
#define PT__CAT(a, b) PT__CAT2(a, b)
#define PT__ID(x) PT__CAT(x, __LINE__)

#ifdef __cplusplus
namespace paratrace_detail {
struct func_scope {
	paratrace_func_desc *f;
	explicit func_scope(paratrace_func_desc *d) : f(d)
	{
		if (paratrace_func_begin)
			paratrace_func_begin(f);
	}
	~func_scope()
	{
		if (paratrace_func_end)
			paratrace_func_end(f);
	}
	func_scope(const func_scope &) = delete;
	func_scope &operator=(const func_scope &) = delete;
};
struct value_scope {
	paratrace_type_desc *t;
	value_scope(paratrace_type_desc *d, int64_t v) : t(d)
	{
		if (paratrace_user_event)
			paratrace_user_event(t, v, nullptr);
	}
	~value_scope()
	{
		if (paratrace_user_event)
			paratrace_user_event(t, 0, nullptr);
	}
	value_scope(const value_scope &) = delete;
	value_scope &operator=(const value_scope &) = delete;
};
} // namespace paratrace_detail

#define PT_FUNCTION()                                                                           \
	static paratrace_func_desc PT__ID(pt_fd_) = {__PRETTY_FUNCTION__, __FILE__, __LINE__, 0}; \
	paratrace_detail::func_scope PT__ID(pt_fs_)(&PT__ID(pt_fd_))
#define PT_SCOPE(tag, value)                                              \
	static paratrace_type_desc PT__ID(pt_td_) = {(tag), 1, 0};        \
	paratrace_detail::value_scope PT__ID(pt_vs_)(&PT__ID(pt_td_), (int64_t)(value))

#else /* C: the cleanup attribute ends the scope on every way out of the block */

static inline void paratrace_func_cleanup_(paratrace_func_desc **f)
{
	if (*f && paratrace_func_end)
		paratrace_func_end(*f);
}
static inline paratrace_func_desc *paratrace_func_start_(paratrace_func_desc *f)
{
	if (!paratrace_func_begin)
		return (paratrace_func_desc *)0;
	paratrace_func_begin(f);
	return f;
}
static inline void paratrace_scope_cleanup_(paratrace_type_desc **t)
{
	if (*t && paratrace_user_event)
		paratrace_user_event(*t, 0, (const char *)0);
}
static inline paratrace_type_desc *paratrace_scope_start_(paratrace_type_desc *t, int64_t v)
{
	if (!paratrace_user_event)
		return (paratrace_type_desc *)0;
	paratrace_user_event(t, v, (const char *)0);
	return t;
}

#define PT_FUNCTION()                                                                  \
	static paratrace_func_desc PT__ID(pt_fd_) = {__func__, __FILE__, __LINE__, 0};   \
	__attribute__((cleanup(paratrace_func_cleanup_), unused)) paratrace_func_desc *     \
		PT__ID(pt_fs_) = paratrace_func_start_(&PT__ID(pt_fd_))
#define PT_SCOPE(tag, value)                                                         \
	static paratrace_type_desc PT__ID(pt_td_) = {(tag), 1, 0};                   \
	__attribute__((cleanup(paratrace_scope_cleanup_), unused)) paratrace_type_desc * \
		PT__ID(pt_vs_) = paratrace_scope_start_(&PT__ID(pt_td_), (int64_t)(value))
#endif

/* PT_SCOPE_UPDATE(tag, value) or PT_SCOPE_UPDATE(tag, value, "value name") */
#define PT_SCOPE_UPDATE(...) PT__UPDATE(__VA_ARGS__, 0, 0)
#define PT__UPDATE(tag, value, name, ...)                                         \
	do {                                                                      \
		static paratrace_type_desc pt_td_ = {(tag), 1, 0};                \
		if (paratrace_user_event)                                         \
			paratrace_user_event(&pt_td_, (int64_t)(value), (name));  \
	} while (0)
#define PT_EVENT(type, value)                                                     \
	do {                                                                      \
		static paratrace_type_desc pt_td_ = {(type), 0, 0};               \
		if (paratrace_user_event)                                         \
			paratrace_user_event(&pt_td_, (int64_t)(value), 0);       \
	} while (0)
#define PT_COUNTER(name)                   \
	do {                               \
		if (paratrace_counter)     \
			paratrace_counter(name); \
	} while (0)
#define PT_THREAD_NAME(name)                   \
	do {                                   \
		if (paratrace_thread_name)     \
			paratrace_thread_name(name); \
	} while (0)

#else /* !PARATRACE_ENABLED: nothing at all */

#define PT_FUNCTION() ((void)0)
#define PT_SCOPE(tag, value) ((void)0)
#define PT_SCOPE_UPDATE(...) ((void)0)
#define PT_EVENT(type, value) ((void)0)
#define PT_COUNTER(name) ((void)0)
#define PT_THREAD_NAME(name) ((void)0)

#endif

#endif /* PARATRACE_H */
