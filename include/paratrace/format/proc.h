/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of the process log: process info, the module
 * map, function tables, fork, exec, signals and exit. This family's rows of
 * the record schema (PT_REC_ROWS_PROC), payload structs, their dump fields and
 * constants. <paratrace/format.h> includes it: include that, not this. */
#ifndef PARATRACE_FORMAT_PROC_H
#define PARATRACE_FORMAT_PROC_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/proc.h>"
#endif

#define PT_REC_ROWS_PROC(X) \
	/* Process log */ \
	X(PROCESS_INFO, 26, pt_rec_process_info, sizeof(pt_rec_process_info), 0, "process", "–", \
	  "+ exe path + argc strings") \
	X(MODULE_MAP, 27, pt_rec_module_map, sizeof(pt_rec_module_map), 0, "process", "–", \
	  "+ build id bytes + path") \
	X(MODULE_UNMAP, 28, pt_rec_module_unmap, sizeof(pt_rec_module_unmap), 0, "process", "–", \
	  "") \
	X(FUNC_DEF, 29, pt_rec_func_def, sizeof(pt_rec_func_def), 0, "process", "–", \
	  "+ mangled name + file") \
	X(FORK, 30, pt_rec_fork, sizeof(pt_rec_fork), 0, "parent's thread, child's process", "–", \
	  "") \
	X(EXEC, 31, void, 0, 0, "thread (the caller)", "–", "string: the path executed") \
	X(SIGNAL, 32, pt_rec_signal, PT_REC_SIGNAL_MIN_PAYLOAD, 0, "thread, or process", "–", \
	  "signo, code, addr [, tid (3.2)]") \
	X(EXIT, 33, pt_rec_exit, sizeof(pt_rec_exit), 0, "process", "–", "")

#define PT_FIELDS_EXEC(T, F, A, S, C) S(0, PLAIN)

typedef struct pt_rec_process_info {
	uint32_t argc;
	uint32_t flags; /* PT_HDR_FLAG_* */
	uint64_t parent_run_seq; /* reserved */
	/* followed by: exe path\0, then argc strings\0 */
} pt_rec_process_info;
#define PT_FIELDS_PROCESS_INFO(T, F, A, S, C) \
	F(T, U, "argc", argc, "") F(T, FLAGS, "flags", flags, "forked|execed") \
	C(command_line, "exe= name=<command line>")

typedef struct pt_rec_module_map {
	uint64_t base; /* load bias (dlpi_addr) */
	uint64_t lo;   /* lowest mapped address of the module */
	uint64_t hi;   /* one past the highest */
	uint32_t build_id_len;
	uint32_t flags; /* PT_MODULE_* */
	/* followed by build_id_len bytes, then NUL-terminated path, padded to 8 */
} pt_rec_module_map;
#define PT_MODULE_DLOPEN 0x1 /* mapped by dlopen after start */
#define PT_MODULE_MAIN 0x2   /* the executable */
#define PT_FIELDS_MODULE_MAP(T, F, A, S, C) \
	F(T, X, "base", base, "") F(T, X, "lo", lo, "") F(T, X, "hi", hi, "") \
	C(build_id, "buildid=<hex, or ->") F(T, FLAGS, "flags", flags, "dlopen|main") \
	C(module_path, "name=<path>")

typedef struct pt_rec_module_unmap {
	uint64_t base;
} pt_rec_module_unmap;
#define PT_FIELDS_MODULE_UNMAP(T, F, A, S, C) F(T, X, "base", base, "")

typedef struct pt_rec_func_def {
	uint32_t id;   /* run-time function id (FUNC_ENTER/EXIT) */
	uint32_t line; /* 0 = unknown */
	uint64_t module_base; /* load bias of the module that registered it, 0 if unknown */
	/* followed by NUL-terminated (mangled) name, then NUL-terminated file */
} pt_rec_func_def;
#define PT_FIELDS_FUNC_DEF(T, F, A, S, C) \
	F(T, U, "id", id, "") F(T, U, "line", line, "") F(T, X, "base", module_base, "") \
	C(func_def_names, "[file=] name=<demangled>")

typedef struct pt_rec_fork {
	uint32_t child_pid;
	uint32_t parent_pid;
	uint32_t flags; /* PT_FORK_* */
	uint32_t pad;
} pt_rec_fork;
#define PT_FORK_VFORK 0x1
#define PT_FORK_SPAWN 0x2 /* posix_spawn, system, popen */
#define PT_FIELDS_FORK(T, F, A, S, C) \
	F(T, U, "child", child_pid, "") F(T, U, "parent", parent_pid, "") \
	F(T, FLAGS, "flags", flags, "vfork|spawn")

/* A signal the runtime's handler took, in the log of the thread that took
 * it; in the process log when that thread was inside the runtime (its log
 * then holds a record in progress), where tid says which thread it was. */
typedef struct pt_rec_signal {
	int32_t signo;
	int32_t code;  /* si_code */
	uint64_t addr; /* si_addr for faults */
	uint32_t tid;  /* 3.2: the thread that took it (0: not said) */
	uint32_t pad;
} pt_rec_signal;
#define PT_REC_SIGNAL_MIN_PAYLOAD 16
#define PT_FIELDS_SIGNAL(T, F, A, S, C) \
	F(T, I, "signo", signo, "") F(T, I, "code", code, "") F(T, X, "addr", addr, "") \
	F(T, U, "tid", tid, "")

typedef struct pt_rec_exit {
	int32_t status; /* exit status, or signal number when PT_EXIT_SIGNAL */
	uint32_t how;   /* PT_EXIT_* */
} pt_rec_exit;
#define PT_EXIT_NORMAL 1 /* exit() / return from main */
#define PT_EXIT__EXIT 2  /* _exit / _Exit */
#define PT_EXIT_QUICK 3  /* quick_exit */
#define PT_EXIT_SIGNAL 4 /* killed by a fatal signal */
#define PT_EXIT_ABORT 5
#define PT_FIELDS_EXIT(T, F, A, S, C) \
	F(T, I, "status", status, "") \
	F(T, ENUM, "how", how, "|normal|_exit|quick_exit|signal|abort")

#endif /* PARATRACE_FORMAT_PROC_H */
