/* SPDX-License-Identifier: MIT */
/* Device auto among many processes: the GPU goes to the process that holds a lock file (the
 * gpu_lock field of the engines' options), the others stay on their CPU engines. Without it, 16
 * processes started at once each open a CUDA context and the GPU time-slices them, slower
 * together than their CPU engines. The lock is a POSIX record lock: held by the process (its
 * engines share it) until it exits or closes the file. */
#ifndef GVK_COMMON_GPU_LOCK_H
#define GVK_COMMON_GPU_LOCK_H

#include "gvk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1: this process holds the lock at path (*fd to pass to gvk_gpu_lock_release); 0: another
 * process holds it; < 0: the file cannot be opened (err says why; *fd is -1). */
int gvk_gpu_lock_take(const char *path, int *fd, gvk_err_t *err);
void gvk_gpu_lock_release(int fd);
/* Device auto with a lock file: whether this engine may open the GPU. 1: the process holds the
 * lock, or the file cannot be used (said at INFO: the GPU is opened without it); 0: another
 * process holds it (said as a warning naming the engine, which computes on the CPU). */
int gvk_gpu_lock_claim(const char *path, int *fd, const gvk_log_t *log, const char *engine);
/* Whether the machine has GPU device nodes (NVIDIA or AMD), checked without starting a GPU
 * runtime: the lock is worth taking only there. */
int gvk_gpu_nodes_present(void);

#ifdef __cplusplus
}
#endif

#endif
