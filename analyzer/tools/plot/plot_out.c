/* SPDX-License-Identifier: MIT */
/* Output files of plot and report --html (plot.h): written complete under a
 * temporary name beside the final one, then renamed onto it, so that a
 * failed run leaves an earlier file as it was, a reader never sees half a
 * file, and an existing file or symbolic link of that name is replaced,
 * never written through. PNG pictures come from rsvg-convert (librsvg). */
#define _GNU_SOURCE
#include "plot.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define RSVG "rsvg-convert"
#define RSVG_MISSING                                                                               \
	"--png needs " RSVG ", which is not in PATH (Debian: apt-get install librsvg2-bin)"

/* A new file "path.tmp-XXXXXX" (mkstemp: O_EXCL, so never an existing file
 * or link), with the permissions a plain create would give. */
static int make_temp(const char *path, char **tmp, char *err, size_t errlen)
{
	if (asprintf(tmp, "%s.tmp-XXXXXX", path) < 0) {
		*tmp = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", *tmp, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		snprintf(err, errlen, "%s: %s", *tmp, strerror(errno));
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	return fd;
}

static int rename_into_place(char *tmp, const char *path, char *err, size_t errlen)
{
	if (rename(tmp, path)) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int pl_write_file(const char *path, int (*write)(FILE *f, void *arg), void *arg, char *err,
                  size_t errlen)
{
	char *tmp;
	int fd = make_temp(path, &tmp, err, errlen);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	errno = 0;
	int rc = write(f, arg);
	if (fflush(f) || ferror(f))
		rc = -1;
	int e = errno;
	if (fclose(f))
		rc = -1, e = e ? e : errno;
	if (rc) {
		snprintf(err, errlen, "writing %s: %s", tmp, strerror(e ? e : EIO));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	return rename_into_place(tmp, path, err, errlen);
}

int pl_png_available(char *err, size_t errlen)
{
	const char *path = getenv("PATH");
	char *dirs = strdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
	int found = 0;
	for (char *save = NULL, *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char *exe;
		if (asprintf(&exe, "%s/" RSVG, *d ? d : ".") < 0)
			break;
		found = access(exe, X_OK) == 0;
		free(exe);
	}
	free(dirs);
	if (!found)
		snprintf(err, errlen, RSVG_MISSING);
	return found ? 0 : -1;
}

int pl_svg_to_png(const char *svg, const char *png, char *err, size_t errlen)
{
	char *tmp, *in;
	int fd = make_temp(png, &tmp, err, errlen);
	if (fd < 0)
		return -1;
	close(fd);
	/* a name that starts with '-' is no option */
	if (asprintf(&in, "%s%s", svg[0] == '-' ? "./" : "", svg) < 0) {
		unlink(tmp);
		free(tmp);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char *argv[] = {RSVG, "--format", "png", "-o", tmp, in, NULL};
	pid_t pid;
	int rc = posix_spawnp(&pid, RSVG, NULL, NULL, argv, environ), status = 0;
	if (!rc) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	free(in);
	if (rc || !WIFEXITED(status) || WEXITSTATUS(status)) {
		if (rc == ENOENT)
			snprintf(err, errlen, RSVG_MISSING);
		else if (rc)
			snprintf(err, errlen, "cannot run " RSVG ": %s", strerror(rc));
		else
			snprintf(err, errlen, RSVG " failed (status %d) converting %s to %s",
			         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
			         svg, png);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	return rename_into_place(tmp, png, err, errlen);
}
