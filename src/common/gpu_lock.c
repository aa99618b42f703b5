/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gpu_lock.h"
#include "log.h"

int gvk_gpu_lock_take(const char *path, int *fd, gvk_err_t *err)
{
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (*fd < 0) return gvk_err_set(err, GVK_ERR_IO, "GPU lock %s: %s", path, strerror(errno));
	struct flock fl;
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_WRLCK, fl.l_whence = SEEK_SET;
	if (fcntl(*fd, F_SETLK, &fl) == 0) return 1;
	int e = errno;
	close(*fd), *fd = -1;
	if (e == EACCES || e == EAGAIN) return 0;
	return gvk_err_set(err, GVK_ERR_IO, "GPU lock %s: %s", path, strerror(e));
}

int gvk_gpu_lock_claim(const char *path, int *fd, const gvk_log_t *log, const char *engine)
{
	gvk_err_t lerr = {0, ""};
	int rc = gvk_gpu_lock_take(path, fd, &lerr);
	if (rc == 0) gvk_logf(log, GVK_LOG_WARN, "another process holds the GPU lock %s; %s computes on the CPU", path, engine);
	else if (rc < 0) gvk_logf(log, GVK_LOG_INFO, "%s; opening the GPU without it", lerr.msg);
	return rc != 0;
}

void gvk_gpu_lock_release(int fd)
{
	if (fd >= 0) close(fd);
}

/* A process that loses the lock must not touch the GPU runtime either: initialising it costs a
 * fraction of a second of CPU per process, which 16 processes starting at once all pay. */
int gvk_gpu_nodes_present(void)
{
	return access("/dev/nvidiactl", F_OK) == 0 || access("/dev/nvidia0", F_OK) == 0 || access("/dev/kfd", F_OK) == 0;
}
