/* SPDX-License-Identifier: MIT */
#include "work_split.h"

void gvk_work_split(int64_t n, int size, int r, double (*cum)(int64_t i, const void *arg), const void *arg,
                    int64_t *lo, int64_t *hi)
{
	if (!cum) {
		*lo = n * r / size, *hi = n * (r + 1) / size;
		return;
	}
	double total = cum(n, arg);
	int64_t b[2];
	for (int k = 0; k < 2; ++k) {
		/* the first i whose work reaches the part's share, by bisection (cum never decreases) */
		double want = total * (double)(r + k) / (double)size;
		int64_t a = 0, z = n;
		while (a < z) {
			int64_t mid = a + (z - a) / 2;
			if (cum(mid, arg) < want) a = mid + 1;
			else z = mid;
		}
		b[k] = r + k == size ? n : a;
	}
	*lo = b[0], *hi = b[1];
}
