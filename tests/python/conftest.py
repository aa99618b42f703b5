# SPDX-License-Identifier: MIT
"""Where the CLI and the bundled data are: GVK_CLI and GVK_DATA, else the source tree's build."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def cli():
	path = os.environ.get("GVK_CLI", os.path.join(ROOT, "build", "src", "gvk"))
	assert os.access(path, os.X_OK), "gvk CLI not found at %s (set GVK_CLI)" % path

	def run(*args):
		p = subprocess.run([path] + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
		assert p.returncode == 0, "gvk %s failed: %s" % (" ".join(map(str, args)), p.stderr.decode())
		return p.stdout.decode()
	return run


@pytest.fixture(scope="session")
def data():
	return os.environ.get("GVK_DATA", os.path.join(ROOT, "tests", "data"))
