#!/bin/bash
# SPDX-License-Identifier: MIT
# Prepares .carry/openmpi/ (git-ignored, never committed) for a GPU host without OpenMPI and
# without a package registry: the installed files of this machine's OpenMPI packages and the
# libraries they load (about 20 MB), and env.sh, which puts them first on PATH and
# LD_LIBRARY_PATH and relocates OpenMPI there (OPAL_PREFIX). scripts/gpu-check.sh sources it
# when present. Both hosts need the same Debian release (12 here) for the libraries to match.
# Usage: scripts/carry-mpi.sh   (after scripts/setup.sh installed libopenmpi-dev openmpi-bin)
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.carry/openmpi
git check-ignore -q "$dest/env.sh" || { echo "carry-mpi: $dest is not ignored by git; not copying" >&2; exit 1; }
pkgs=(openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libhwloc15 libevent-core-2.1-7
	libevent-pthreads-2.1-7 libfabric1 libucx0 libpsm2-2 libpsm-infinipath1 libibverbs1 librdmacm1 libnl-3-200
	libnl-route-3-200 libefa1)
rm -rf "$dest"; mkdir -p "$dest"
n=0
for p in "${pkgs[@]}"; do
	dpkg -s "$p" > /dev/null 2>&1 || { echo "carry-mpi: $p is not installed (skipped)"; continue; }
	while IFS= read -r f; do
		# documentation, Fortran, Java and OpenSHMEM are not needed by gvk
		case $f in */doc/* | */man/* | */lintian/* | /etc/alternatives* | */fortran/* | *.mod | *mpif* | *oshmem* | */osh* | *.jar | *java* | *.a) continue ;; esac
		if [ -L "$f" ] || [ -f "$f" ]; then
			mkdir -p "$dest$(dirname "$f")"; cp -a "$f" "$dest$f"; n=$((n + 1))
		fi
	done < <(dpkg -L "$p")
done
# The generic names are links through /etc/alternatives on Debian: made direct here.
ln -sf orterun "$dest/usr/bin/mpirun"; ln -sf orterun "$dest/usr/bin/mpiexec"; ln -sf opal_wrapper "$dest/usr/bin/mpicc"
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || echo x86_64-linux-gnu)
cat > "$dest/env.sh" << ENV
# SPDX-License-Identifier: MIT
# source .carry/openmpi/env.sh: the carried OpenMPI first (scripts/carry-mpi.sh)
c=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=\$c/usr PATH=\$c/usr/bin:\$PATH
export LD_LIBRARY_PATH=\$c/usr/lib/$arch/openmpi/lib:\$c/usr/lib/$arch\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
# CMake: the MPI of the carried tree, found by its compiler wrapper
export GVK_MPI_CMAKE="-DMPI_C_COMPILER=\$c/usr/bin/mpicc"
ENV
echo "carry-mpi: $n files, $(du -sh "$dest" | cut -f1) in $dest"
