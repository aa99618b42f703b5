#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The struct layouts three ways, without numpy: gvk.h read here (a parser of its own, independent of
cmake/gvk_abi.cmake), the library's gvk_struct_layout() table, and the Python package's ctypes
declarations (gvk/_lib.py, as its import checks them). Every struct and field of the header must be
in the table in order, and the package's check must pass on the library and refuse a declaration
that differs, naming the struct and the field. Usage: abi_check.py LIBGVK SOURCE_DIR"""
import ctypes
import importlib.util
import os
import re
import sys

lib_path, src = sys.argv[1], sys.argv[2]
# A sanitizer build's library needs its runtime loaded first: run again with it preloaded.
if "LD_PRELOAD" not in os.environ and b"libasan" in open(lib_path, "rb").read():
	import subprocess
	cc = os.environ.get("CC", "cc")
	rt = [subprocess.run([cc, "-print-file-name=lib%s.so" % n], stdout=subprocess.PIPE).stdout.decode().strip()
	      for n in ("asan", "ubsan")]
	os.environ["LD_PRELOAD"] = " ".join(p for p in rt if os.path.isabs(p))
	os.environ["ASAN_OPTIONS"] = "detect_leaks=0"
	os.execv(sys.executable, [sys.executable] + sys.argv)
fails = []


def header_structs(path):
	"""{struct: [fields in order]} of every `typedef struct { ... } name;` in a C header."""
	text = re.sub(r"/\*.*?\*/", " ", open(path).read(), flags=re.S)
	out = {}
	for body, name in re.findall(r"typedef\s+struct\s*\{([^{}]*)\}\s*(\w+)\s*;", text):
		fields = []
		for decl in body.split(";"):
			decl = re.sub(r"\[[^\]]*\]", "", decl)
			fp = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", decl)
			if fp:
				fields.append(fp.group(1))
				continue
			fields += [m.group(1) for m in (re.search(r"(\w+)\s*$", d) for d in decl.split(",")) if m]
		out[name] = fields
	return out


spec = importlib.util.spec_from_file_location("gvk_lib", os.path.join(src, "python", "gvk", "_lib.py"))
_lib = importlib.util.module_from_spec(spec)
spec.loader.exec_module(_lib)
lib = ctypes.CDLL(lib_path)

# The header against the library's table: the same structs, the same fields in the same order.
want = header_structs(os.path.join(src, "include", "gvk.h"))
fn = lib.gvk_struct_layout
fn.restype, fn.argtypes = ctypes.POINTER(_lib.Layout), [ctypes.POINTER(ctypes.c_size_t)]
n = ctypes.c_size_t()
t = fn(ctypes.byref(n))
got = {}
for k in range(n.value):
	typ = t[k].type.decode()
	if t[k].field is None:
		got[typ] = []
	else:
		got[typ].append(t[k].field.decode())
for s in sorted(set(want) | set(got)):
	if want.get(s) != got.get(s):
		fails.append("%s: gvk.h has %s, the library's table %s" % (s, want.get(s), got.get(s)))
if len(want) < 20:
	fails.append("only %d structs read from gvk.h" % len(want))

# The package's declarations against the library, as its import does.
try:
	table = _lib.check_structs(lib, lib_path)
except ImportError as e:
	fails.append("the package's check refuses this library: %s" % e)
	table = _lib.library_layout(lib)

# The check itself: a declaration with a field missing, retyped or added is refused by name.
for cls in _lib.STRUCTS:
	fields = list(cls._fields_)
	variants = {"missing": fields[:-1], "added": fields + [("gvk_extra", ctypes.c_int)]}
	name, typ = fields[0][0], fields[0][1]
	variants["retyped"] = [(name, ctypes.c_char if ctypes.sizeof(typ) != 1 else ctypes.c_int64)] + fields[1:]
	for what, fl in variants.items():
		bad = type("Bad", (ctypes.Structure,), {"_c_name_": cls._c_name_, "_fields_": fl})
		try:
			_lib.check_structs(lib, lib_path, [bad])
			fails.append("%s with a field %s: accepted" % (cls._c_name_, what))
		except ImportError as e:
			if cls._c_name_ not in str(e):
				fails.append("%s with a field %s: the message does not name the struct: %s" % (cls._c_name_, what, e))

for f in fails:
	print("FAIL:", f)
print("%d structs in gvk.h, %d declared by the package: %s" % (len(want), len(_lib.STRUCTS),
                                                               "FAILED" if fails else "ok"))
sys.exit(1 if fails else 0)
