/* SPDX-License-Identifier: MIT */
/* Between the files of the runtime's life cycle only: core.c (init, the
 * threads' state), shutdown.c (the process's end) and fork_exec.c (a fork
 * child's rebuild, exec). Each of these is one file's code that another
 * one runs at its moment; nothing else includes this. */
#ifndef PT_CORE_LIFE_H
#define PT_CORE_LIFE_H

#include "core.h"

/* core.c: the threads' states, the registry they are in */
PT_HIDDEN void pt_registry_add(pt_thread *t);
PT_HIDDEN void pt_registry_remove_locked(pt_thread *t);
PT_HIDDEN void pt_thread_free(pt_thread *t);
PT_HIDDEN int pt_open_thread_log(pt_thread *t);
PT_HIDDEN void pt_emit_thread_start(pt_thread *t, const pt_rec_thread_start *start);
PT_HIDDEN void pt_keep_slow_if_needed(pt_thread *t);
/* The owner mark (core.c): 1 once this process's tracing state is its own */
extern PT_HIDDEN int *pt_owner_mark;
PT_HIDDEN int pt_process_is_mine(void);

/* shutdown.c */
/* 1 when membarrier(2) gives pt_enter an asymmetric fence */
extern PT_HIDDEN int pt_asym_fence;
PT_HIDDEN void pt_asym_fence_register(void);
PT_HIDDEN void pt_thread_destructor(void *arg);
PT_HIDDEN __attribute__((noinline, cold)) pt_thread *pt_enter_ending(pt_thread *t);
PT_HIDDEN void pt_logs_shutdown(int in_signal);

/* fork_exec.c: 1 when this fork child's state is rebuilt and traced */
PT_HIDDEN int pt_adopt_child(void);

#endif
