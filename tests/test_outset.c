/* SPDX-License-Identifier: MIT */
/* The all-or-nothing output set (src/common/outset.c): a commit whose last rename fails puts every
 * earlier output back as it was (an existing file restored, a new one removed); one file named for
 * two outputs, or standard output twice, is refused; a symbolic link is written through; a file
 * marked to drop goes once the outputs are in place. Runs in a fresh directory under /tmp. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Files in the current directory besides the named ones: left-over temporaries or backups. */
static int strays(void)
{
	FILE *p = popen("ls -A | grep -c -e '\\.tmp' -e '\\.old'", "r");
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

int main(void)
{
	char dir[] = "/tmp/gvk-outset-XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) != 0) return printf("cannot make a directory under /tmp\n"), 1;
	rollback();
	unique();
	links();
	if (system("rm -rf -- \"$PWD\"") != 0) printf("note: %s not removed\n", dir);
	printf("%s\n", fails ? "FAILED" : "all passed");
	return fails != 0;
}
