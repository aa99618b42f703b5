/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "err.h"

const char *gvk_strerror(int code)
{
	switch (code) {
	case GVK_OK: return "success";
	case GVK_ERR_IO: return "input/output error";
	case GVK_ERR_FORMAT: return "malformed input";
	case GVK_ERR_NOMEM: return "out of memory";
	case GVK_ERR_ARG: return "invalid argument";
	case GVK_ERR_GPU: return "GPU error";
	case GVK_ERR_UNSUPPORTED: return "not supported by this build";
	default: return "unknown error";
	}
}

int gvk_err_set(gvk_err_t *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

int gvk_err_null(gvk_err_t *err, const char *fn, const char *arg)
{
	return gvk_err_set(err, GVK_ERR_ARG, "%s: %s is NULL", fn, arg);
}

int gvk_err_code(const gvk_err_t *err, int dflt) { return err && err->code < 0 ? err->code : dflt; }
