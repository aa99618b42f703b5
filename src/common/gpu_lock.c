/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gpu_lock.h"

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

void gvk_gpu_lock_release(int fd)
{
	if (fd >= 0) close(fd);
}
