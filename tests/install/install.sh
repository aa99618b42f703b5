#!/bin/bash
# SPDX-License-Identifier: MIT
# The installed library as a user gets it: `cmake --install` of this build into a temporary prefix;
# libgvk.so exports the functions gvk.h declares and nothing else; examples/pairhmm.c built with
# pkg-config (shared, run without LD_LIBRARY_PATH, and static) and examples/ as a CMake project
# (find_package(gvk), shared and static) give what the installed `gvk` gives on the same input;
# gvk.pc installed under /usr (through DESTDIR) has no rpath.
# Usage: install.sh BUILD_DIR SOURCE_DIR LIBDIR VERSION (CMAKE and CC in the environment: the build's)
set -eu -o pipefail
build=$1 src=$2 libdir=$3 version=$4
cmake=${CMAKE:-cmake} cc=${CC:-cc}
# Programs built without the sanitizers cannot load or link a library built with them.
if grep -qx 'CMAKE_BUILD_TYPE:STRING=Sanitize' "$build/CMakeCache.txt"; then
	echo "skip: not in Sanitize builds"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/prefix lib=$tmp/prefix/$libdir
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$cmake" --install "$build" --prefix "$p" > "$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
# The SONAME: major and minor before 1.0, the major alone from then on (src/CMakeLists.txt).
soname=libgvk.so.${version%%.*}
[ "${version%%.*}" = 0 ] && soname=libgvk.so.$(echo "$version" | cut -d. -f1,2)
for f in bin/gvk "$libdir/libgvk.so" "$libdir/$soname" "$libdir/libgvk.so.$version" \
	"$libdir/libgvk.a" include/gvk.h "$libdir/pkgconfig/gvk.pc" "$libdir/cmake/gvk/gvkConfig.cmake" \
	"$libdir/cmake/gvk/gvkConfigVersion.cmake"; do
	[ -e "$p/$f" ] || bad "not installed: $f"
done
[ "$fail" = 0 ] || exit 1
# Manual pages (built when CMake found help2man): installed, found by man through MANPATH, rendered
# without warnings, each naming its command.
if grep -q '^GVK_HELP2MAN:FILEPATH=/' "$build/CMakeCache.txt"; then
	for page in gvk gvk-pairhmm gvk-align gvk-cnv gvk-ld gvk-fastid; do
		f=$p/share/man/man1/$page.1
		[ -e "$f" ] || { bad "not installed: share/man/man1/$page.1"; continue; }
		command -v man > /dev/null || continue
		MANWIDTH=100 man --warnings -l "$f" > "$tmp/man.txt" 2> "$tmp/man.err" || bad "man -l $page.1 failed"
		[ -s "$tmp/man.err" ] && bad "man -l $page.1 warns: $(head -n 3 "$tmp/man.err")"
		cmd=${page#gvk}; cmd=${cmd#-}
		grep -q "^ *gvk ${cmd:+$cmd }" "$tmp/man.txt" || bad "$page.1 has no 'gvk $cmd' synopsis"
		MANPATH=$p/share/man man -w "$page" > /dev/null 2>&1 || bad "man $page does not find the installed page"
	done
	echo "manual pages: $(ls "$p/share/man/man1" | wc -l) installed"
else
	echo "help2man not found at configure time: no manual pages to check"
fi
[ "$(readelf -d "$lib/libgvk.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" = "$soname" ] || bad "SONAME is not $soname"
"$p/bin/gvk" --version | grep -qx "gvk $version" || bad "installed gvk --version is not $version"

# Exported: exactly the functions gvk.h declares, plus what the linker itself may define.
sed -n 's/^GVK_EXPORT .*[^a-z_]\(gvk_[a-z0-9_]*\)(.*/\1/p' "$p/include/gvk.h" | sort > "$tmp/declared"
nm -D --defined-only "$lib/libgvk.so" | awk '{print $NF}' | grep -vxE '_init|_fini|_edata|_end|__bss_start' |
	sort > "$tmp/exported"
if ! diff "$tmp/declared" "$tmp/exported" > "$tmp/symdiff"; then
	bad "libgvk.so exports differ from gvk.h's functions (< declared only, > exported only):"
	cat "$tmp/symdiff"
fi
echo "libgvk.so exports $(wc -l < "$tmp/exported") symbols"

# The values `gvk pairhmm` computes for the example's reads and haplotypes.
"$p/bin/gvk" pairhmm -q -t 1 --device cpu "$src/tests/data/pairhmm/inputs/gpupairhmm_readme_example.in" \
	> "$tmp/pairhmm.want"
check_pairhmm() { # NAME PROGRAM (a command line)
	"${@:2}" > "$tmp/$1.out" || { bad "$1 failed"; return; }
	grep -qx "gvk $version (header $version) on .*" "$tmp/$1.out" || bad "$1: version line: $(head -n 1 "$tmp/$1.out")"
	awk '/^read/ {print $NF}' "$tmp/$1.out" | diff -q - "$tmp/pairhmm.want" > /dev/null ||
		bad "$1: values differ from gvk pairhmm: $(awk '/^read/ {print $NF}' "$tmp/$1.out" | paste -sd ' ')" \
		    "against $(paste -sd ' ' "$tmp/pairhmm.want")"
}

if command -v pkg-config > /dev/null; then
	export PKG_CONFIG_PATH=$lib/pkgconfig
	[ "$(pkg-config --modversion gvk)" = "$version" ] || bad "pkg-config --modversion gvk is not $version"
	# shellcheck disable=SC2046 # the flags are words
	"$cc" -std=c11 -Wall -Werror "$src/examples/pairhmm.c" $(pkg-config --cflags --libs gvk) -o "$tmp/pairhmm_pc"
	# Found through the rpath that Libs gives for a prefix outside the linker's own directories:
	# no LD_LIBRARY_PATH entry that holds a libgvk (one for a non-system htslib stays).
	ldp=
	for d in $(printf '%s' "${LD_LIBRARY_PATH:-}" | tr ':' ' '); do
		compgen -G "$d/libgvk.so*" > /dev/null || ldp=$ldp${ldp:+:}$d
	done
	check_pairhmm pairhmm_pc env LD_LIBRARY_PATH="$ldp" "$tmp/pairhmm_pc"
	readelf -d "$tmp/pairhmm_pc" | grep -qE "R(UN)?PATH.*$lib" || bad "pairhmm_pc has no rpath to $lib"
	# A prefix whose libdir the linker searches anyway gets no rpath.
	DESTDIR=$tmp/sys "$cmake" --install "$build" --prefix /usr > "$tmp/install_sys.log" || { cat "$tmp/install_sys.log"; bad "install --prefix /usr failed"; }
	grep -q -- '-rpath' "$tmp/sys/usr/$libdir/pkgconfig/gvk.pc" 2> /dev/null && bad "gvk.pc for /usr has an rpath: $(grep '^Libs:' "$tmp/sys/usr/$libdir/pkgconfig/gvk.pc")"
	[ -e "$tmp/sys/usr/$libdir/pkgconfig/gvk.pc" ] || bad "install --prefix /usr: no $libdir/pkgconfig/gvk.pc"
	# Static: libgvk.a by name (the linker would take the .so), the rest from Libs.private.
	# shellcheck disable=SC2046
	"$cc" -std=c11 "$src/examples/pairhmm.c" $(pkg-config --cflags gvk) \
		$(pkg-config --static --libs gvk | sed 's/-lgvk\b/-l:libgvk.a/') -o "$tmp/pairhmm_pc_static"
	readelf -d "$tmp/pairhmm_pc_static" | grep -q 'NEEDED.*libgvk' && bad "pairhmm_pc_static needs libgvk.so"
	check_pairhmm pairhmm_pc_static "$tmp/pairhmm_pc_static"
else
	echo "pkg-config not found: its part is left out"
fi
unset PKG_CONFIG_PATH

# Plain text, for builds without zlib.
gzip -dc "$src/tests/data/cnv/small/input_counts.tsv.gz" > "$tmp/counts.tsv"

# examples/ as a CMake project: shared (the build tree's RPATH finds libgvk.so), then static.
for kind in shared static; do
	d=$tmp/examples_$kind
	static=OFF
	[ "$kind" = static ] && static=ON
	if ! { "$cmake" -S "$src/examples" -B "$d" -DCMAKE_PREFIX_PATH="$p" -DGVK_EXAMPLES_STATIC=$static \
		-DCMAKE_BUILD_TYPE=Release && "$cmake" --build "$d" -j 2; } > "$tmp/examples_$kind.log" 2>&1; then
		cat "$tmp/examples_$kind.log"
		bad "examples ($kind) did not build"
		continue
	fi
	check_pairhmm "pairhmm_$kind" "$d/pairhmm"
	if [ "$kind" = static ]; then
		readelf -d "$d/pairhmm" | grep -q 'NEEDED.*libgvk' && bad "static examples need libgvk.so"
	fi

	"$d/align" > "$tmp/align.out" || bad "align ($kind) failed"
	awk 'NR > 1 {print $1 "\t" $2}' "$tmp/align.out" > "$tmp/align.tsv"
	"$p/bin/gvk" align -q -t 1 --device cpu -p ORIGINAL_DEFAULT --overhang SOFTCLIP "$tmp/align.tsv" > "$tmp/align.want"
	awk 'NR > 1 {print $4 "\t" $6 "\t" $8}' "$tmp/align.out" | diff - "$tmp/align.want" > /dev/null ||
		bad "align ($kind) differs from gvk align: $(cat "$tmp/align.out" "$tmp/align.want")"

	"$d/ld" "$tmp/ld_$kind" > "$tmp/ld.out" || bad "ld ($kind) failed"
	# SNP 2 mirrors SNP 0.
	awk 'NR == 2 {exit !($1 == 1 && $3 == 1)}' "$tmp/ld.out" || bad "ld ($kind): $(cat "$tmp/ld.out")"
	ls "$tmp/ld_$kind".* > /dev/null 2>&1 && bad "ld ($kind) left its fileset behind"

	"$d/fastid" > "$tmp/fastid.out" || bad "fastid ($kind) failed"
	{ grep -qx "identity query 0: db 17 score 3" "$tmp/fastid.out" &&
		[ "$(grep -cE '^mixture query 0: db (5|600) score 0$' "$tmp/fastid.out")" = 2 ]; } ||
		bad "fastid ($kind): $(cat "$tmp/fastid.out")"

	# The made-up deletion, and the planted CNVs of the small count matrix.
	"$d/cnv" > "$tmp/cnv.out" || bad "cnv ($kind) failed"
	grep -qE "^S3	chr1:[0-9]+-[0-9]+	CN1	" "$tmp/cnv.out" || bad "cnv ($kind): $(cat "$tmp/cnv.out")"
	"$d/cnv" "$tmp/counts.tsv" > "$tmp/cnv_small.out" || bad "cnv ($kind) small failed"
	grep -qE "^S05	chr1:[0-9]+-[0-9]+	CN0	" "$tmp/cnv_small.out" || bad "cnv ($kind) small: $(cat "$tmp/cnv_small.out")"
done
[ "$fail" = 0 ] && echo "install: every check passed"
exit "$fail"
