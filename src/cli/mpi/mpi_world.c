/* SPDX-License-Identifier: MIT */
/* Starting a command under MPI: is this process one rank of a job, which GPU it takes, and which
 * driver runs the command. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_world.h"
#include "../../common/err.h"

/* The ranks of this node, counted once by gvk_mpi_start (MPI_Comm_split_type), as MPI keeps its
 * own process-wide state; 1 outside a job. */
static int node_ranks = 1, node_rank = 0;
/* 1 once an agreement found another rank failed: that rank ends the job (gvk_mpi_end), after its
 * message. MPI's world is the process's, as these counts are. */
static int stopped_by_other;

int gvk_mpi_launched(void)
{
	/* A child that a rank starts on its slice is one process again. */
	if (getenv("GVK_MPI_CHILD")) return 0;
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "SLURM_STEP_NUM_TASKS"};
	for (size_t k = 0; k < sizeof vars / sizeof vars[0]; ++k) {
		const char *v = getenv(vars[k]);
		/* srun of a single task, or mpirun -np 1, is one process as before */
		if (v && (k == 2 || atoi(v) > 1)) return 1;
	}
	return 0;
}

int gvk_mpi_several(void)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	return w.size > 1;
}

void gvk_mpi_world_get(gvk_mpi_world_t *w)
{
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	if (init) MPI_Finalized(&fin);
	*w = (gvk_mpi_world_t){MPI_COMM_WORLD, 0, 1, 0, 1, -1};
	if (!init || fin) return;
	w->local_rank = node_rank, w->local_size = node_ranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &w->size);
}

/* The GPUs this process may use: CUDA_VISIBLE_DEVICES's entries when set, else the driver's
 * list of boards (counted without starting CUDA, which would fix the choice too early). */
static int visible_gpus(char ids[][64], int max)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	int n = 0;
	if (v) {
		char buf[1024];
		snprintf(buf, sizeof buf, "%s", v);
		for (char *s = strtok(buf, ","); s && n < max; s = strtok(NULL, ","))
			snprintf(ids[n++], 64, "%s", s);
		return n;
	}
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	if (!d) return 0;
	for (struct dirent *e; (e = readdir(d)) && n < max;)
		if (e->d_name[0] != '.') snprintf(ids[n], 64, "%d", n), ++n;
	closedir(d);
	return n;
}

/* One GPU per rank: the node-local rank modulo the GPUs, made the only one visible so that every
 * engine (each uses its first visible GPU) computes on it. */
static void pick_gpu(gvk_mpi_world_t *w)
{
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &w->local_rank);
	MPI_Comm_size(node, &w->local_size);
	MPI_Comm_free(&node);
	node_ranks = w->local_size, node_rank = w->local_rank;
	char ids[64][64];
	int n = visible_gpus(ids, 64);
	if (n == 0) return;
	w->gpu = w->local_rank % n;
	setenv("CUDA_VISIBLE_DEVICES", ids[w->gpu], 1);
}

/* A command that exits on its own (-h prints the help and exits) still ends MPI, so that the
 * launcher does not take it for a crash. */
static void finalize_at_exit(void)
{
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	if (init) MPI_Finalized(&fin);
	if (init && !fin) MPI_Finalize();
}

int gvk_mpi_start(const char *name, int *argc, char ***argv, gvk_mpi_world_t *w)
{
	int provided;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		fprintf(stderr, "gvk %s: cannot start MPI\n", name);
		return -1;
	}
	atexit(finalize_at_exit);
	gvk_mpi_world_get(w);
	pick_gpu(w);
	return 0;
}

int gvk_mpi_node_threads(int ncpu)
{
	int n = ncpu / (node_ranks > 0 ? node_ranks : 1);
	return n > 0 ? n : 1;
}

int gvk_mpi_end(const gvk_mpi_world_t *w, int rc)
{
	/* A rank that failed alone (its input, its GPU) may leave the others waiting in a collective
	 * call: the job ends here, after that rank's message, with every temporary output removed
	 * (the ranks' signal handlers remove theirs). A rank stopped by another's failure gives that
	 * rank a moment to abort first: aborting at once could kill it before its message is out. */
	if (rc != 0 && w->size > 1) {
		const struct timespec tick = {0, 10000000};
		for (int k = 0; stopped_by_other && k < 200; ++k) nanosleep(&tick, NULL);
		fflush(NULL);
		MPI_Abort(MPI_COMM_WORLD, rc);
	}
	finalize_at_exit();
	return rc;
}

/* GVK_TEST_KILL_RANK=R:N, for the tests of a rank that dies (tests/mpi/mpi_faults.sh): rank R
 * kills itself (SIGKILL) on its N-th agreement, N from 1. Read here, in the CLI, like the other
 * test switches; the count is that rank's own. */
static void test_kill(const gvk_mpi_world_t *w)
{
	static int calls;
	const char *v = getenv("GVK_TEST_KILL_RANK");
	int r = -1, n = 0;
	if (!v || sscanf(v, "%d:%d", &r, &n) != 2 || r != w->rank) return;
	if (++calls == n) {
		fflush(NULL);
		raise(SIGKILL);
	}
}

int gvk_mpi_agree(const gvk_mpi_world_t *w, int rc, gvk_err_t *err)
{
	if (w->size <= 1) return rc;
	test_kill(w);
	/* the failing rank's own message names it, as the others' do */
	if (rc < 0 && err && err->msg[0] && strncmp(err->msg, "rank ", 5) && strncmp(err->msg, "stopped:", 8)) {
		char m[sizeof err->msg];
		snprintf(m, sizeof m, "rank %d: %.490s", w->rank, err->msg);
		memcpy(err->msg, m, sizeof m);
	}
	struct {
		int v, r;
	} in = {rc < 0 ? rc : 0, w->rank}, out;
	MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, w->comm);
	if (out.v < 0 && rc >= 0) stopped_by_other = 1;
	if (out.v < 0 && rc >= 0 && err) gvk_err_set(err, out.v, "stopped: rank %d failed", out.r);
	return out.v;
}
