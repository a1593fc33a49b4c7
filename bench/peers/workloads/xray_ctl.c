/* SPDX-License-Identifier: MIT */
/* Linked into the XRay builds. Basic mode starts from XRAY_OPTIONS alone,
 * but FDR mode records nothing unless the program initializes and flushes
 * it through XRay's logging API, so this does that when BENCH_XRAY_FDR is
 * set (options from XRAY_FDR_OPTIONS, as XRay itself names them).
 * XRay's headers are C++ only; these are the extern "C" entry points of
 * compiler-rt 14 (xray_log_interface.h, xray_interface.h) with the enum
 * values we test. */
#include <stdlib.h>

int __xray_log_select_mode(const char *mode);
int __xray_log_init_mode(const char *mode, const char *config);
int __xray_log_finalize(void);
int __xray_log_flushLog(void);
int __xray_patch(void);

#define XRAY_REGISTRATION_OK 0
#define XRAY_LOG_INITIALIZED 2

__attribute__((xray_never_instrument, constructor)) static void fdr_start(void)
{
	if (!getenv("BENCH_XRAY_FDR"))
		return;
	const char *opts = getenv("XRAY_FDR_OPTIONS");
	if (__xray_log_select_mode("xray-fdr") != XRAY_REGISTRATION_OK ||
	    __xray_log_init_mode("xray-fdr", opts ? opts : "") != XRAY_LOG_INITIALIZED)
		abort(); /* a benchmark that silently measures nothing is worse */
	__xray_patch();
}

__attribute__((xray_never_instrument, destructor)) static void fdr_stop(void)
{
	if (!getenv("BENCH_XRAY_FDR"))
		return;
	__xray_log_finalize();
	__xray_log_flushLog();
}
