/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of synchronization: locks, semaphores,
 * barriers, condition variables and futexes (thread logs). This family's rows
 * of the record schema (PT_REC_ROWS_SYNC), payload structs, their dump fields
 * and constants. <paratrace/format.h> includes it: include that, not this. */
#ifndef PARATRACE_FORMAT_SYNC_H
#define PARATRACE_FORMAT_SYNC_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/sync.h>"
#endif

#define PT_REC_ROWS_SYNC(X) \
	/* Synchronization; arg = enum pt_lock_type. The result of lock \
	 * records is optional (pt_rec_lock). */ \
	X(LOCK_REQUEST, 17, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "lock type", \
	  "object [, result]") \
	X(LOCK_ACQUIRED, 18, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "lock type", \
	  "object [, result]") \
	X(LOCK_FAILED, 19, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "lock type", \
	  "object, result = error number (EBUSY, ETIMEDOUT…)") \
	X(LOCK_RELEASED, 20, pt_rec_lock, 0, 0, "thread", "lock type", \
	  "object, or nothing (1.2: the object acquired last)") \
	X(COND_WAIT_BEGIN, 21, pt_rec_cond, sizeof(pt_rec_cond), 0, "thread", "–", "") \
	X(COND_WAIT_END, 22, pt_rec_cond, sizeof(pt_rec_cond), 0, "thread", "–", "") \
	X(COND_SIGNAL, 23, pt_rec_cond, sizeof(pt_rec_cond), 0, "thread", "0 signal, 1 broadcast", \
	  "") \
	X(BARRIER_BEGIN, 24, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "7 (barrier)", \
	  "object") \
	X(BARRIER_END, 25, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "7 (barrier)", \
	  "object [, result = return value]")

enum pt_lock_type {
	PT_LOCK_MUTEX = 1,
	PT_LOCK_RWLOCK_READ = 2,
	PT_LOCK_RWLOCK_WRITE = 3,
	PT_LOCK_SPIN = 4,
	PT_LOCK_SEMAPHORE = 5,
	PT_LOCK_C11_MTX = 6,
	PT_LOCK_BARRIER = 7,
	/* OpenMP mutual exclusion (OMPT mutex callbacks, GOMP_* and omp_*_lock
	 * wrappers): the object is the runtime's lock (a critical's, a lock's) */
	PT_LOCK_OMP_LOCK = 8,     /* omp_set_lock */
	PT_LOCK_OMP_NEST_LOCK = 9, /* omp_set_nest_lock */
	PT_LOCK_OMP_CRITICAL = 10, /* critical (named or not: OMPT cannot tell) */
	PT_LOCK_OMP_ATOMIC = 11,   /* atomic done with a lock */
	PT_LOCK_OMP_ORDERED = 12,  /* ordered */
	PT_LOCK_OMP_CRITICAL_NAMED = 13, /* critical(name) of a GOMP_* program */
};
static inline int pt_lock_is_omp(unsigned type)
{
	return type >= PT_LOCK_OMP_LOCK && type <= PT_LOCK_OMP_CRITICAL_NAMED;
}

/* LOCK_* and BARRIER_* records. `result` and `pad` are optional: a
 * record of 16 bytes (head + object) has result 0, which is how the
 * runtime writes every record whose result is 0. Since 1.2 a LOCK_RELEASED
 * may also omit the object (8 bytes, head alone): it releases the object
 * of the most recent LOCK_ACQUIRED record of the same file. libptlog
 * delivers such a record as the 16-byte form, object filled in. Read them
 * with pt_rec_lock_get, not PT_REC_PAYLOAD. */
typedef struct pt_rec_lock {
	uint64_t object; /* address of the lock / semaphore / barrier */
	int32_t result;  /* FAILED / BARRIER_END: the call's return or error number */
	uint32_t pad;
} pt_rec_lock;
#define PT_REC_LOCK_MIN_PAYLOAD 8
#define PT_LOCK_TYPE_NAMES \
	"|mutex|rwlock_read|rwlock_write|spin|semaphore|c11_mtx|barrier|omp_lock|omp_nest_lock|" \
	"omp_critical|omp_atomic|omp_ordered|omp_critical_named"
#define PT_FIELDS_LOCK_REQUEST(T, F, A, S, C) \
	F(T, X, "obj", object, "") A(ENUM, "type", PT_LOCK_TYPE_NAMES)
#define PT_FIELDS_LOCK_ACQUIRED(T, F, A, S, C) \
	PT_FIELDS_LOCK_REQUEST(T, F, A, S, C) F(T, I, "result", result, "")
#define PT_FIELDS_LOCK_FAILED PT_FIELDS_LOCK_ACQUIRED
#define PT_FIELDS_LOCK_RELEASED PT_FIELDS_LOCK_REQUEST
#define PT_FIELDS_BARRIER_BEGIN PT_FIELDS_LOCK_REQUEST
#define PT_FIELDS_BARRIER_END PT_FIELDS_LOCK_ACQUIRED

/* COND_* records. A futex (FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAKE made
 * through libc's syscall(): C++20 atomic waits, latches, barriers,
 * semaphores) is recorded as a condition whose address is the futex word,
 * with PT_COND_FUTEX in the arg and mutex 0: WAIT_END's result is 0 or the
 * error number (EAGAIN, ETIMEDOUT, EINTR), SIGNAL's is the number of threads
 * woken. A SIGNAL's arg bit 0 says broadcast (a wake of more than one). */
typedef struct pt_rec_cond {
	uint64_t cond;
	uint64_t mutex;
	int32_t result; /* WAIT_END: return value (0, ETIMEDOUT…) */
	uint32_t pad;
} pt_rec_cond;
#define PT_COND_BROADCAST 0x1
#define PT_COND_FUTEX 0x2
#define PT_FIELDS_COND_WAIT_BEGIN(T, F, A, S, C) \
	F(T, X, "cond", cond, "") F(T, X, "mutex", mutex, "") C(cond_futex, "[futex]")
#define PT_FIELDS_COND_WAIT_END(T, F, A, S, C) \
	F(T, X, "cond", cond, "") F(T, X, "mutex", mutex, "") F(T, I, "result", result, "") \
	C(cond_futex, "[futex]")
#define PT_FIELDS_COND_SIGNAL(T, F, A, S, C) \
	F(T, X, "cond", cond, "") F(T, X, "mutex", mutex, "") \
	C(cond_signal, "broadcast=0|1 [futex woken=n]")

/* A lock record's payload, the optional result filled in (0 when absent).
 * Returns out, or NULL if the record is too small to hold the object. */
static inline const pt_rec_lock *pt_rec_lock_get(const pt_rec_head *h, pt_rec_lock *out)
{
	const pt_rec_lock *l = PT_REC_PAYLOAD(h, pt_rec_lock);
	if (l) {
		*out = *l;
		return out;
	}
	const uint64_t *obj = PT_REC_PAYLOAD(h, uint64_t);
	if (!obj)
		return NULL;
	out->object = *obj;
	out->result = 0;
	out->pad = 0;
	return out;
}

#endif /* PARATRACE_FORMAT_SYNC_H */
