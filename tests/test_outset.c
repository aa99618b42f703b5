/* SPDX-License-Identifier: MIT */
/* The all-or-nothing output set (src/common/outset.c): a commit whose last rename fails puts every
 * earlier output back as it was (an existing file restored, a new one removed); one file named for
 * two outputs, or standard output twice, is refused; a symbolic link is written through; a file
 * marked to drop goes once the outputs are in place. What a process killed with SIGKILL leaves
 * (a temporary; a commit cut between two renames, or before its clean-up) is repaired when the
 * next set opens one of its outputs, with one message; another host's temporary is left alone.
 * Runs in a fresh directory under /tmp. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/common/outset.h"

static int fails;

static void check(int ok, const char *what)
{
	if (!ok) ++fails, printf("FAIL: %s\n", what);
}

static void put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (fp) fputs(text, fp), fclose(fp);
}

/* The file's first line, or "" when it cannot be read. */
static const char *first_line(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	buf[0] = 0;
	if (fp) {
		if (!fgets(buf, sizeof buf, fp)) buf[0] = 0;
		fclose(fp);
	}
	return buf;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* Files in the current directory besides the named ones: left-over temporaries, backups or journals. */
static int strays(void)
{
	FILE *p = popen("ls -A | grep -c -e '\\.tmp' -e '\\.old' -e '\\.commit'", "r");
	int n = -1;
	if (p) {
		if (fscanf(p, "%d", &n) != 1) n = -1;
		pclose(p);
	}
	return n;
}

static void rollback(void)
{
	put("a.txt", "old a\n");
	gvk_outset_t s;
	gvk_err_t err;
	gvk_outset_init(&s);
	FILE *a = gvk_outset_open(&s, "a.txt", &err), *b = gvk_outset_open(&s, "b.txt", &err);
	FILE *c = gvk_outset_open(&s, "c.txt", &err);
	check(a && b && c, "three outputs open");
	if (!a || !b || !c) return;
	fputs("new a\n", a), fputs("new b\n", b), fputs("new c\n", c);
	/* c's path becomes a directory after its temporary was made: its rename fails last. */
	check(mkdir("c.txt", 0755) == 0, "mkdir c.txt");
	check(gvk_outset_commit(&s, &err) < 0, "commit fails when the last rename fails");
	gvk_outset_abort(&s);
	check(!strcmp(first_line("a.txt"), "old a\n"), "a.txt restored");
	check(!exists("b.txt"), "b.txt, new, removed again");
	rmdir("c.txt");
	check(strays() == 0, "no temporaries or backups left after the failed commit");

	gvk_outset_init(&s);
	a = gvk_outset_open(&s, "a.txt", &err), b = gvk_outset_open(&s, "b.txt", &err);
	check(a && b, "two outputs open");
	if (!a || !b) return;
	fputs("new a\n", a), fputs("new b\n", b);
	check(gvk_outset_commit(&s, &err) == 0, "commit succeeds");
	gvk_outset_abort(&s);
	check(!strcmp(first_line("a.txt"), "new a\n") && !strcmp(first_line("b.txt"), "new b\n"), "both replaced");
	check(strays() == 0, "no temporaries or backups left after the commit");
}

static void unique(void)
{
	gvk_outset_t s;
	gvk_err_t err;
	gvk_outset_init(&s);
	check(gvk_outset_open(&s, "u.txt", &err) != NULL, "u.txt opens");
	check(gvk_outset_open(&s, "./u.txt", &err) == NULL, "./u.txt refused beside u.txt");
	check(gvk_outset_open(&s, "-", &err) != NULL, "standard output opens");
	check(gvk_outset_open(&s, NULL, &err) == NULL, "standard output refused twice");
	check(gvk_outset_open(&s, "/dev/null", &err) && gvk_outset_open(&s, "/dev/null", &err), "/dev/null twice");
	gvk_outset_abort(&s);
	check(!exists("u.txt") && strays() == 0, "aborted set leaves nothing");
}

static void links(void)
{
	put("target.txt", "old target\n");
	check(symlink("target.txt", "link.txt") == 0, "symlink");
	gvk_outset_t s;
	gvk_err_t err;
	gvk_outset_init(&s);
	FILE *fp = gvk_outset_open(&s, "link.txt", &err);
	check(fp != NULL && gvk_outset_open(&s, "target.txt", &err) == NULL, "a link and its target are one file");
	if (fp) fputs("new target\n", fp);
	put("stale.idx", "stale\n");
	check(gvk_outset_drop(&s, "stale.idx", &err) == 0, "drop");
	check(gvk_outset_commit(&s, &err) == 0, "commit through a link");
	gvk_outset_abort(&s);
	struct stat st;
	check(lstat("link.txt", &st) == 0 && S_ISLNK(st.st_mode), "the link stays a link");
	check(!strcmp(first_line("target.txt"), "new target\n"), "its target replaced");
	check(!exists("stale.idx"), "the dropped file removed");
}

/* The messages a set passes to its log. */
typedef struct {
	int n;
	char last[512];
} said_t;

static void hear(void *arg, int level, const char *msg)
{
	said_t *h = arg;
	(void)level;
	++h->n;
	snprintf(h->last, sizeof h->last, "%s", msg);
}

/* In a child: a.txt and b.txt written as one set, the process killed after `renames` renames of
 * the commit (-1: before the commit). Whether it died of SIGKILL. */
static int killed_run(int renames)
{
	pid_t pid = fork();
	if (pid == 0) {
		gvk_outset_t s;
		gvk_err_t err;
		gvk_outset_init(&s);
		s.kill_after = renames + 1;
		FILE *a = gvk_outset_open(&s, "a.txt", &err), *b = gvk_outset_open(&s, "b.txt", &err);
		if (!a || !b) _exit(2);
		fputs("new a\n", a), fputs("new b\n", b);
		if (renames < 0) fflush(a), fflush(b), raise(SIGKILL);
		gvk_outset_commit(&s, &err);
		_exit(3);
	}
	int st = 0;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

/* Opens path in a fresh set that listens to its log, checks what it heard, and aborts the set. */
static void next_run(const char *path, const char *want, const char *what)
{
	gvk_outset_t s;
	gvk_err_t err;
	said_t h = {0, ""};
	gvk_outset_init(&s);
	s.log = (gvk_log_t){hear, &h, GVK_LOG_WARN};
	check(gvk_outset_open(&s, path, &err) != NULL, "the next run opens its output");
	check(h.n == 1 && strstr(h.last, want) != NULL, what);
	if (h.n != 1 || !strstr(h.last, want)) printf("  heard %d: %s\n", h.n, h.last);
	gvk_outset_abort(&s);
}

static void killed(void)
{
	put("a.txt", "old a\n"), put("b.txt", "old b\n");
	check(killed_run(-1), "a run killed while writing");
	check(strays() == 2, "its two temporaries left");
	put("b.txt.tmp999999.0.another-host", "x\n");
	next_run("a.txt", "removed 1 temporary", "a.txt's temporary removed, said once");
	next_run("b.txt", "removed 1 temporary", "b.txt's temporary removed, said once");
	check(exists("b.txt.tmp999999.0.another-host"), "another host's temporary left alone");
	unlink("b.txt.tmp999999.0.another-host");
	check(strays() == 0, "nothing left of the killed run");

	check(killed_run(1), "a run killed between its two renames");
	check(!strcmp(first_line("a.txt"), "new a\n") && !strcmp(first_line("b.txt"), "old b\n"), "half replaced");
	next_run("b.txt", "put back as they were", "the half-replaced set put back, said once");
	check(!strcmp(first_line("a.txt"), "old a\n") && !strcmp(first_line("b.txt"), "old b\n"), "both as before");
	check(strays() == 0, "no temporary, backup or journal left after the roll-back");

	unlink("b.txt");
	check(killed_run(2), "a run killed after its renames, before its clean-up");
	next_run("a.txt", "is completed", "the commit completed, said once");
	check(!strcmp(first_line("a.txt"), "new a\n") && !strcmp(first_line("b.txt"), "new b\n"), "both new");
	check(strays() == 0, "no backup or journal left after the completion");

	unlink("a.txt"), put("b.txt", "old b\n");
	check(killed_run(1), "killed between the renames, a.txt new to the set");
	check(exists("a.txt"), "a.txt made by the killed commit");
	next_run("b.txt", "put back", "rolled back");
	check(!exists("a.txt") && !strcmp(first_line("b.txt"), "old b\n"), "a.txt, which did not stand before, removed");
	check(strays() == 0, "nothing left after the second roll-back");
}

int main(void)
{
	char dir[] = "/tmp/gvk-outset-XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) != 0) return printf("cannot make a directory under /tmp\n"), 1;
	rollback();
	unique();
	links();
	killed();
	if (system("rm -rf -- \"$PWD\"") != 0) printf("note: %s not removed\n", dir);
	printf("%s\n", fails ? "FAILED" : "all passed");
	return fails != 0;
}
