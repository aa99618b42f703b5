#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the manual page of gvk or of one of its commands from the program's own --help text
# (help2man), so that the page cannot disagree with the program. The version comes from CMake:
# --version's later lines describe the build host (CPU, htslib), which a page must not carry.
# Usage: gvk-man.sh GVK_BINARY VERSION COMMAND|- "one-line description" GUIDE OUT.1
set -eu
gvk=$1 ver=$2 cmd=$3 desc=$4 guide=$5 out=$6
inc=$out.h2m
if [ "$cmd" = - ]; then
	name=gvk help=--help
	see="gvk-pairhmm(1), gvk-align(1), gvk-cnv(1), gvk-ld(1), gvk-fastid(1)"
else
	name=gvk-$cmd help="$cmd --help"
	see="gvk(1)"
fi
{
	printf '[NAME]\n%s \\- %s\n' "$name" "$desc"
	printf '[SEE ALSO]\n%s.\n.PP\nIn the gvk sources, %s describes inputs, outputs, exactness and the GPU engine,\n' "$see" "$guide"
	printf 'with examples on the bundled test data.\n'
} > "$inc"
help2man --no-info --section 1 --help-option="$help" --version-string="gvk $ver" \
	--include "$inc" "$gvk" > "$out.tmp"
# help2man names the page after the program (gvk); a command's page is gvk-COMMAND.
upper=$(printf '%s' "$name" | tr a-z A-Z)
sed -e "s/^\\.TH GVK /.TH $upper /" "$out.tmp" > "$out"
rm -f "$out.tmp" "$inc"
