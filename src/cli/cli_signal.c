/* SPDX-License-Identifier: MIT */
/* The signals that end a process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM)
 * end a command with its output paths untouched: they are blocked in every thread and taken by
 * one watcher thread, which removes the temporaries of the command's output set and exits with
 * 128 + the signal number, as a shell reports a killed job. A signal the parent set to be ignored
 * stays ignored (nohup). SIGXFSZ is blocked too, so that a file over the size limit fails its
 * write, and the command its commit, with a message. Signals are process-wide, so the set being
 * watched is the one piece of process-wide state in the CLI; the library knows nothing of it. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "../common/outset.h"
#include "commands.h"

static _Atomic(struct gvk_outset_s *) watched;
static sigset_t handled;
/* gvk serve: the first signal asks it to stop (it lets calls in flight finish and removes its
 * socket); a second one ends the process at once. The lock lets gvk_cli_signals_on_stop(NULL)
 * return only once no call of fn is running, so that its argument can be freed after it. */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*stop_fn)(void *);
static void *stop_arg;

static void *watcher(void *arg)
{
	(void)arg;
	for (;;) {
		int sig = 0;
		if (sigwait(&handled, &sig) != 0) continue;
		pthread_mutex_lock(&stop_lock);
		void (*fn)(void *) = sig != SIGXFSZ ? stop_fn : NULL;
		if (fn) fn(stop_arg), stop_fn = NULL;
		pthread_mutex_unlock(&stop_lock);
		if (fn) continue;
		gvk_outset_t *s = atomic_load(&watched);
		if (s) gvk_outset_remove_temps(s);
		_exit(128 + sig);
	}
	return NULL;
}

int gvk_cli_signals_start(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXFSZ};
	sigemptyset(&handled);
	for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; ++k) {
		struct sigaction old;
		if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
		sigaddset(&handled, sigs[k]);
	}
	/* Before any other thread exists, so that every thread (CUDA's included) inherits the mask. */
	if (pthread_sigmask(SIG_BLOCK, &handled, NULL) != 0) return -1;
	pthread_t th;
	if (pthread_create(&th, NULL, watcher, NULL) != 0) {
		pthread_sigmask(SIG_UNBLOCK, &handled, NULL);
		return -1;
	}
	pthread_detach(th);
	return 0;
}

/* GVK_TEST_KILL_COMMIT=N, for the tests of a run killed inside its commit: the process kills
 * itself (SIGKILL) after N renames of the set's commit. Read here, where every command hands its
 * set over, because the library reads no environment. */
static void test_hook(gvk_outset_t *s)
{
	const char *v = getenv("GVK_TEST_KILL_COMMIT");
	char *end;
	long n = v && *v ? strtol(v, &end, 10) : -1;
	if (n >= 0 && n < 1000 && !*end) s->kill_after = (int)n + 1;
}

void gvk_cli_signals_watch(gvk_outset_t *s)
{
	if (s) test_hook(s);
	atomic_store(&watched, s);
}

void gvk_cli_signals_on_stop(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&stop_lock);
	stop_fn = fn, stop_arg = arg;
	pthread_mutex_unlock(&stop_lock);
}
