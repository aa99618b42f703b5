# SPDX-License-Identifier: MIT
"""A PEP 517 backend that builds the pure-Python wheel of gvk with the standard library alone.

The wheel records where libgvk.so was found at build time (GVK_LIBRARY, the library that
`cmake --install` put beside this folder (libgvk.path), or the source tree's build/src), as one of the
places the package looks for it (gvk/_install_path.py).

numpy is named as a dependency only when the interpreter installing gvk can import it: pip
--no-index cannot fetch it for an interpreter without it (pyenv's, python.org's), and the package
says at import what to install ("gvk needs numpy: ...")."""
import base64
import hashlib
import os
import subprocess
import sys
import zipfile

NAME, VERSION = "gvk", "0.2.0"
HERE = os.path.dirname(os.path.abspath(__file__))
DIST = "%s-%s" % (NAME, VERSION)
TAG = "py3-none-any"


def get_requires_for_build_wheel(config_settings=None):
	return []


def get_requires_for_build_sdist(config_settings=None):
	return []


def _have_numpy():
	"""Whether the installing interpreter imports numpy (-I: without the build's isolated path)."""
	try:
		return subprocess.run([sys.executable, "-I", "-c", "import numpy"], stdout=subprocess.DEVNULL,
		                      stderr=subprocess.DEVNULL).returncode == 0
	except OSError:
		return False


def _metadata():
	requires = "Requires-Dist: numpy\n"
	if not _have_numpy():
		requires = ""
		sys.stderr.write("gvk: %s cannot import numpy; gvk installs, and its import says what to install "
		                 "(apt-get install python3-numpy, or pip install numpy in this environment)\n" % sys.executable)
	return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: GPU variant kernels (ctypes binding of libgvk)\n"
	        "License: MIT\nRequires-Python: >=3.8\n%s" % (NAME, VERSION, requires))


def _libraries():
	out = []
	env = os.environ.get("GVK_LIBRARY")
	if env:
		out.append(os.path.abspath(env))
	try:  # this folder as `cmake --install` put it (share/gvk/python): the installed library
		with open(os.path.join(HERE, "libgvk.path")) as f:
			out.append(f.read().strip())
	except OSError:
		pass
	built = os.path.join(os.path.dirname(HERE), "build", "src", "libgvk.so")
	if os.path.exists(built):
		out.append(built)
	return out


def _files():
	"""(name in the wheel, bytes) of the package."""
	pkg = os.path.join(HERE, "gvk")
	for f in sorted(os.listdir(pkg)):
		if f.endswith(".py") and f != "_install_path.py":
			with open(os.path.join(pkg, f), "rb") as fh:
				yield "gvk/" + f, fh.read()
	text = "# Written by the wheel build: where libgvk.so was when gvk was installed.\nLIBRARIES = %r\n" % (
		_libraries(),)
	yield "gvk/_install_path.py", text.encode()


def _record_line(name, data):
	digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
	return "%s,sha256=%s,%d" % (name, digest, len(data))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
	wheel = "%s-%s.whl" % (DIST, TAG)
	info = DIST + ".dist-info/"
	entries = list(_files())
	entries.append((info + "METADATA", _metadata().encode()))
	entries.append((info + "WHEEL", ("Wheel-Version: 1.0\nGenerator: gvk_build\nRoot-Is-Purelib: true\nTag: %s\n"
	                                 % TAG).encode()))
	record = [_record_line(n, d) for n, d in entries] + [info + "RECORD,,"]
	entries.append((info + "RECORD", ("\n".join(record) + "\n").encode()))
	with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
		for n, d in entries:
			z.writestr(n, d)
	return wheel


def build_sdist(sdist_directory, config_settings=None):
	import tarfile
	name = DIST + ".tar.gz"
	with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
		for f in ("pyproject.toml", "gvk_build.py", "README.md", "libgvk.path"):
			if os.path.exists(os.path.join(HERE, f)):
				t.add(os.path.join(HERE, f), DIST + "/" + f)
		t.add(os.path.join(HERE, "gvk"), DIST + "/gvk", filter=lambda i: None if "__pycache__" in i.name else i)
	return name
