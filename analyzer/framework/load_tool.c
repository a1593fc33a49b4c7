/* SPDX-License-Identifier: MIT */
/* Tools loaded from shared objects (--tool FILE.so[:OPTIONS]). */
#define _GNU_SOURCE
#include "pt_framework.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pt_fw_load_tool(const char *spec, pt_fw_tool *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	char *path = strdup(spec);
	if (!path) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* "x.so:options": split after the first ".so" that is followed by ':' */
	char *colon = strstr(path, ".so:");
	const char *options = NULL;
	if (colon) {
		colon[3] = 0;
		options = spec + (colon + 4 - path);
	}
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		snprintf(err, errlen, "--tool %s: %s", path, dlerror());
		free(path);
		return -1;
	}
	pt_tool_entry_fn entry;
	*(void **)&entry = dlsym(dl, PT_TOOL_ENTRY);
	const pt_tool *tool = entry ? entry() : NULL;
	if (!tool) {
		snprintf(err, errlen, "--tool %s: no %s() returning a tool", path, PT_TOOL_ENTRY);
		dlclose(dl);
		free(path);
		return -1;
	}
	if (tool->api_version != PT_TOOL_API_VERSION) {
		snprintf(err, errlen, "--tool %s: tool API version %u, this paratrace has %u", path,
		         tool->api_version, PT_TOOL_API_VERSION);
		dlclose(dl);
		free(path);
		return -1;
	}
	free(path);
	out->tool = tool;
	out->options = options;
	out->dl = dl;
	return 0;
}

void pt_fw_unload_tool(pt_fw_tool *t)
{
	if (t->dl)
		dlclose(t->dl);
	t->dl = NULL;
}
